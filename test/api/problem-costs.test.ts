/**
 * What problems cost, and tool_error rules from the config, on the real app (SQLite file, the spans
 * through its pipeline): a refund called without `amount`, repaired on the next
 * step, and a tool whose OK span returns `{"result": {"state": "failed"}}` — a tool_error only by the
 * configured rule. Read over a real socket: /api/problems lists each problem with its cost in tokens and money (the price
 * table), /api/problems/:id adds the daily history and the cost per day and model; a bad rule or
 * price is refused at start with its path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Span } from '../../src/model.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { makeSpan } from '../helpers/spans.js';

const TRACE = 'ab'.repeat(16);
const defs = JSON.stringify([
  { type: 'function', name: 'refund', parameters: { type: 'object', required: ['amount'] } },
  { type: 'function', name: 'lookup', parameters: { type: 'object' } },
]);

function step(
  k: number,
  startMs: number,
  call: { id: string; name: string; args: string } | undefined,
  tokens: [number, number],
): Span {
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4.1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.usage.input_tokens': tokens[0],
      'gen_ai.usage.output_tokens': tokens[1],
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: call
            ? [{ type: 'tool_call', id: call.id, name: call.name, arguments: call.args }]
            : [{ type: 'text', content: 'done' }],
        },
      ]),
    },
    {
      traceId: TRACE,
      spanId: `${k}`.padStart(16, '0'),
      startTimeMs: startMs,
      endTimeMs: startMs + 100,
      service: 'shop',
    },
  );
}

describe('problem costs and tool_error rules through the app', () => {
  let tw: Harness;
  const t0 = Date.now() - 60_000;

  beforeAll(async () => {
    tw = await startToolwatch({
      listen: true,
      config: {
        problems: {
          prices: { 'gpt-4.1': { input: 2, output: 8 } },
          tool_error_rules: ['result.state="failed"'],
        },
      },
    });
    const spans = [
      step(1, t0, { id: 'a', name: 'refund', args: '{}' }, [1000, 100]),
      step(2, t0 + 200, { id: 'b', name: 'refund', args: '{"amount": 5}' }, [1500, 50]),
      step(3, t0 + 400, { id: 'c', name: 'lookup', args: '{}' }, [500, 10]),
      makeSpan(
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'lookup',
          'gen_ai.tool.call.id': 'c',
          'gen_ai.tool.call.result': '{"result": {"state": "failed", "why": "index offline"}}',
        },
        { traceId: TRACE, spanId: '9'.padStart(16, '0'), startTimeMs: t0 + 520, endTimeMs: t0 + 560, service: 'shop' },
      ),
      step(4, t0 + 600, undefined, [700, 70]),
    ];
    await tw.services.pipeline.ingestSpans(spans);
    // Executions counted, then the trajectory completed (as at shutdown: everything in flight).
    await tw.services.pipeline.drain();
  });

  afterAll(async () => {
    await tw?.close();
  });

  it('lists each problem with its repair cost, priced by the table', async () => {
    const res = await fetch(`${tw.url}/api/problems?since=1h`);
    expect(res.status).toBe(200);
    const { problems } = (await res.json()) as {
      problems: { id: string; outcome: string; parts: string[]; cost: Record<string, unknown> }[];
    };
    const missing = problems.find((p) => p.outcome === 'SchemaMismatch')!;
    // Failed at t0+100, repaired by the call proposed at t0+300: step 2 only.
    expect(missing.cost).toEqual({
      repairs: 1,
      repaired: 1,
      retries: 0,
      steps: 1,
      inputTokens: 1500,
      outputTokens: 50,
      durationMs: 200,
      usd: (1500 * 2 + 50 * 8) / 1e6,
      unpricedTokens: 0,
    });
    const failed = problems.find((p) => p.outcome === 'execution')!;
    expect(failed.parts).toEqual(['tool_error', 'type:result']);
    // The tool span ended at t0+560; step 4 came after, nothing repaired it.
    expect(failed.cost).toMatchObject({ repairs: 1, repaired: 0, steps: 1, inputTokens: 700, outputTokens: 70 });
  });

  it("a problem's detail: daily history, cost per day and per model", async () => {
    const { problems } = (await (await fetch(`${tw.url}/api/problems?since=1h`)).json()) as {
      problems: { id: string; outcome: string }[];
    };
    const id = problems.find((p) => p.outcome === 'SchemaMismatch')!.id;
    const p = (await (await fetch(`${tw.url}/api/problems/${id}`)).json()) as Record<string, unknown>;
    const day = new Date(t0 + 300).toISOString().slice(0, 10);
    expect(p.days).toEqual([{ day, count: 1 }]);
    expect(p.costByDay).toEqual([expect.objectContaining({ day, repairs: 1, usd: 0.0034 })]);
    expect(p.costByModel).toEqual([expect.objectContaining({ model: 'gpt-4.1', inputTokens: 1500 })]);
    expect(p.cost).toMatchObject({ usd: 0.0034 });
    const metrics = await tw.metrics();
    expect(metrics).toMatch(/toolwatch_tool_executions_total\{[^}]*status="tool_error"[^}]*\} 1/);
  });

  it('refuses a bad rule or price at start, naming it', () => {
    expect(() => loadConfig({ overrides: { problems: { tool_error_rules: ['ok=', 'fine'] } } })).toThrow(
      /problems\.tool_error_rules\[0\]: "ok=": the value after = must be a JSON literal/,
    );
    expect(() => loadConfig({ overrides: { problems: { prices: { m: { input: -1, output: 1 } } } } })).toThrow(
      /problems/,
    );
  });
});
