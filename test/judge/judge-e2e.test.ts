/**
 * The judge end to end: spans from the real OpenTelemetry exporter into the real app, the hourly
 * job run by hand, and a local server speaking the OpenAI chat-completions protocol. Asserts on the
 * bytes that server received (nothing planted may reach it), on the stored verdicts, the API and
 * the metrics.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { verdictJson } from '../fakes/openai.js';
import { PLANTED } from './planted.js';
import { judgeEnv, type JudgeEnv } from './setup.js';
import type { VerdictRecord } from '../../src/judge/types.js';

let env: JudgeEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const get = async (path: string) => {
  const res = await fetch(`${env!.tw.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('judge: full runs against an OpenAI-compatible server', () => {
  it('judges a sampled trajectory with strict json_schema; no planted secret or PII leaves the process', async () => {
    const seen: VerdictRecord[] = [];
    env = await judgeEnv({
      services: { onVerdict: (v) => void seen.push(v) },
      judge: { price_per_million_input_tokens: 2, price_per_million_output_tokens: 8 },
    });
    const [traceId] = await env.send([{ tag: 'case-a' }]);
    const summary = await env.tw.services.judge!.job!.run();
    expect(summary).toMatchObject({
      status: 'ok',
      judged: 1,
      errors: 0,
      leftPending: 0,
      inputTokens: 1000,
      outputTokens: 50,
    });
    expect(summary.cost).toBeCloseTo((1000 * 2 + 50 * 8) / 1e6, 12);

    expect(env.fake.received).toHaveLength(1);
    const req = env.fake.received[0]!;
    expect(req.headers.authorization).toBe('Bearer test-judge-key');
    expect(req.body.model).toBe('judge-model-1');
    expect(req.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
    // The bytes on the wire: neither the raw value nor its JSON-escaped form may appear.
    for (const [what, secret] of Object.entries(PLANTED)) {
      expect(req.raw, what).not.toContain(secret);
      expect(req.raw, what).not.toContain(JSON.stringify(secret).slice(1, -1));
    }
    for (const mask of ['[EMAIL]', '[PHONE]', '[CARD]', '[SECRET]', '[REDACTED]']) expect(req.raw).toContain(mask);
    // …while the judge still gets the task, tools (with descriptions), calls, results and end state.
    const user = req.body.messages!.find((m) => m.role === 'user')!.content;
    expect(user).toContain('[case-a] Please check my account');
    expect(user).toContain('lookup_customer: Find a customer record by email address.');
    expect(user).toContain('refund_order: Refund an order. Side effect: moves money.');
    expect(user).toMatch(/TOOL lookup_customer \(call case-a-1\) arguments: .*"password":"\[REDACTED\]"/);
    expect(user).toContain('cus_42');
    expect(user).toContain('Your account cus_42 is fine');
    expect(req.body.messages![0]!.content).toContain('Alternative paths to the same goal are');

    const t = await get(`/api/trajectories/${traceId}`);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({
      traceId,
      service: 'support-agent',
      model: 'gpt-4o',
      status: 'judged',
      probability: 1,
      inputTokens: 420,
      outputTokens: 70,
    });
    expect(t.body.steps.map((s: { kind: string }) => s.kind)).toEqual(['model', 'tool', 'model']);
    expect(t.body.steps[0].calls[0]).toMatchObject({ name: 'lookup_customer', outcome: 'valid' });
    expect(t.body.tools.map((d: { name: string }) => d.name)).toEqual(['lookup_customer', 'refund_order']);
    expect(t.body.verdicts).toEqual([
      expect.objectContaining({
        status: 'ok',
        reached_goal: true,
        unnecessary_calls: 0,
        promptVersion: 'v1',
        judgeModel: 'judge-model-1',
        probability: 1,
        weight: 1,
      }),
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ traceId, status: 'ok', verdict: { reached_goal: true } });

    expect(await env.metric('toolwatch_judge_verdicts_total', { service: 'support-agent', reached_goal: 'true' })).toBe(
      1,
    );
    expect(await env.metric('toolwatch_judge_runs_total', { status: 'ok' })).toBe(1);
    expect(await env.metric('toolwatch_judge_tokens_total', { type: 'input' })).toBe(1000);
    expect(await env.metric('toolwatch_judge_cost_total')).toBeCloseTo(0.0024, 10);

    const j = await get('/api/judge?window=1h');
    expect(j.body.rates).toMatchObject({ n: 1, reachedGoal: { rate: 1 } });
    expect(j.body.runs[0]).toMatchObject({ status: 'ok', judged: 1, promptVersion: 'v1', judgeModel: 'judge-model-1' });
  });

  it('falls back to JSON in text when the server rejects json_schema, and remembers it', async () => {
    env = await judgeEnv({
      judge: { concurrency: 1 },
      script: (_, req) =>
        req.body.response_format
          ? { status: 400, error: "response_format type 'json_schema' is not supported" }
          : {
              content: `Here is my verdict:\n\`\`\`json\n${verdictJson({ reached_goal: false, unnecessary_calls: 2 })}\n\`\`\``,
            },
    });
    await env.send([{ tag: 'fb-1' }, { tag: 'fb-2' }]);
    const s = await env.tw.services.judge!.job!.run();
    expect(s).toMatchObject({ status: 'ok', judged: 2 });
    expect(env.fake.received.map((r) => Boolean(r.body.response_format))).toEqual([true, false, false]);
    expect(await env.metric('toolwatch_judge_verdicts_total', { reached_goal: 'false' })).toBe(2);
    expect(await env.metric('toolwatch_judge_unnecessary_calls_total')).toBe(4);
  });

  it('asks once more after a malformed verdict; two bad answers are recorded as a judge error', async () => {
    env = await judgeEnv({
      judge: { concurrency: 1 },
      script: (_, req) => {
        const tag = /\[(bad-\d)\]/.exec(req.raw)?.[1];
        const retry = (req.body.messages ?? []).some((m) => m.role === 'assistant');
        if (tag === 'bad-1')
          return { content: retry ? verdictJson({ dangerous_calls: 1 }) : 'I think the agent did fine.' };
        return {
          content: JSON.stringify({ reached_goal: 'yes', unnecessary_calls: -1, dangerous_calls: 0, reasoning: '' }),
        };
      },
    });
    const [good, bad] = await env.send([{ tag: 'bad-1' }, { tag: 'bad-2' }]);
    const s = await env.tw.services.judge!.job!.run();
    expect(s).toMatchObject({ status: 'ok', judged: 1, errors: 1, leftPending: 0 });
    expect(env.fake.received).toHaveLength(4);
    const retryReq = env.fake.received.find(
      (r) => r.raw.includes('[bad-1]') && r.body.messages!.some((m) => m.role === 'assistant'),
    )!;
    expect(retryReq.body.messages!.at(-1)!.content).toMatch(/not a valid verdict/);
    expect((await get(`/api/trajectories/${good}`)).body.verdicts[0]).toMatchObject({
      status: 'ok',
      dangerous_calls: 1,
    });
    const b = (await get(`/api/trajectories/${bad}`)).body;
    expect(b.status).toBe('error');
    expect(b.verdicts[0]).toMatchObject({ status: 'error', error: expect.stringMatching(/^invalid verdict: /) });
    expect(await env.metric('toolwatch_judge_errors_total', { reason: 'invalid_verdict' })).toBe(1);
    expect(await env.metric('toolwatch_judge_dangerous_calls_total')).toBe(1);
  });

  it('honours Retry-After on 429; a wait longer than max_retry_wait stops the run and the item stays pending', async () => {
    let mode: 'short' | 'long' | 'ok' = 'short';
    env = await judgeEnv({
      judge: { concurrency: 1, max_retry_wait: '2s' },
      script: (n) => {
        if (mode === 'short')
          return n === 1
            ? { status: 429, headers: { 'retry-after': '1' }, error: 'slow down' }
            : { content: verdictJson() };
        if (mode === 'long') return { status: 429, headers: { 'retry-after': '120' }, error: 'come back later' };
        return { content: verdictJson() };
      },
    });
    await env.send([{ tag: 'rl-1' }]);
    expect(await env.tw.services.judge!.job!.run()).toMatchObject({ status: 'ok', judged: 1 });
    const [a, b] = env.fake.received;
    expect(b!.atMs - a!.atMs).toBeGreaterThanOrEqual(950);

    mode = 'long';
    const [id] = await env.send([{ tag: 'rl-2' }]);
    const before = env.fake.received.length;
    const s = await env.tw.services.judge!.job!.run();
    expect(s).toMatchObject({ status: 'partial', judged: 0, leftPending: 1, stopReason: 'rate_limited' });
    expect(env.fake.received.length - before).toBe(1); // did not sleep 120 s, did not hammer
    expect((await get(`/api/trajectories/${id}`)).body).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: expect.stringContaining('429'),
    });

    mode = 'ok';
    expect(await env.tw.services.judge!.job!.run()).toMatchObject({ status: 'ok', judged: 1, leftPending: 0 });
    expect(await env.metric('toolwatch_judge_runs_total', { status: 'partial' })).toBe(1);
  });

  it('backs off and retries on 500 and on a timeout', async () => {
    env = await judgeEnv({
      judge: { concurrency: 1 },
      script: (n) =>
        n === 1 ? { status: 500, error: 'upstream exploded' } : n === 2 ? 'hang' : { content: verdictJson() },
    });
    await env.send([{ tag: 'flaky' }]);
    const started = Date.now();
    expect(await env.tw.services.judge!.job!.run()).toMatchObject({ status: 'ok', judged: 1 });
    expect(env.fake.received).toHaveLength(3);
    // Two backoffs (≥ 0.75 s, ≥ 1.5 s) and one 400 ms timeout.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
  });

  it('gives up after max_retries on persistent 5xx; the item stays pending for the next run', async () => {
    env = await judgeEnv({ judge: { concurrency: 1, max_retries: 0 }, script: () => ({ status: 503, error: 'down' }) });
    const [id] = await env.send([{ tag: 'down' }]);
    expect(await env.tw.services.judge!.job!.run()).toMatchObject({
      status: 'partial',
      stopReason: 'server',
      leftPending: 1,
    });
    expect((await get(`/api/trajectories/${id}`)).body.status).toBe('pending');
    expect(await env.metric('toolwatch_judge_errors_total', { reason: 'server' })).toBe(1);
  });
});
