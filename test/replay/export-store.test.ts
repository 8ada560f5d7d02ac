/**
 * The export's reads on both engines: failure records with their kept request context, feedback and
 * the latest verdict per trace, selected and built the same on SQLite and PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FeedbackStore } from '../../src/feedback/store.js';
import { createRedactor } from '../../src/redact/redact.js';
import { JudgeStore } from '../../src/judge/store.js';
import type { SpanFacts } from '../../src/model.js';
import { storeRedactor } from '../../src/redact/stored.js';
import { failureContextExtension } from '../../src/replay/context.js';
import { exportCases } from '../../src/replay/export.js';
import { parseExportFilters } from '../../src/replay/filters.js';
import { emptyBatch, type FailureRecord } from '../../src/store/store.js';
import { storeEngines } from '../helpers/engines.js';

const engines = storeEngines;

let open: { dispose(): Promise<void> } | undefined;
afterEach(async () => {
  await open?.dispose();
  open = undefined;
});

const NOW = Date.UTC(2026, 8, 14, 10, 0, 0);
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);
const tools = [
  {
    name: 'lookup_order',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
];

function failure(
  traceId: string,
  spanId: string,
  outcome: FailureRecord['outcome'],
  args: string,
  service = 'shop',
): FailureRecord {
  return {
    timeMs: NOW - 60_000,
    source: 'otlp',
    service,
    model: 'gpt-4o',
    tool: 'lookup_order',
    name: 'lookup_order',
    outcome,
    traceId,
    spanId,
    arguments: args,
    errors:
      outcome === 'SchemaMismatch'
        ? [{ instancePath: '', keyword: 'required', message: "must have required property 'order_id'", params: {} }]
        : [],
    message: outcome === 'InvalidJson' ? 'Unexpected end of JSON input' : 'x',
  };
}

const facts = (traceId: string, spanId: string, user: string): SpanFacts => ({
  dialect: 'genai',
  traceId,
  spanId,
  parentSpanId: '',
  service: 'shop',
  startTimeMs: 0,
  endTimeMs: 1,
  role: 'model',
  offered: tools,
  proposals: [],
  replays: [],
  userMessage: user,
});

describe.each(engines)('$name', (engine) => {
  it.skipIf(engine.skip)(
    'exports failure records with their context, filtered by outcome, feedback and verdict',
    async () => {
      const o = await engine.open();
      open = o;
      const sql = o.store.sql;
      const fs = [
        failure(A, '1'.repeat(16), 'SchemaMismatch', '{"order":"ORD-1"}'),
        failure(B, '2'.repeat(16), 'InvalidJson', '{"order_id": ORD'),
        failure(C, '3'.repeat(16), 'SchemaMismatch', '{}', 'billing'),
      ];
      const ctx = failureContextExtension(
        fs,
        [
          facts(A, '1'.repeat(16), 'Where is ORD-1? mail me at sam@example.test'),
          facts(B, '2'.repeat(16), 'Track ORD-2'),
          facts(C, '3'.repeat(16), 'Refund'),
        ],
        NOW,
        storeRedactor('secrets'),
      );
      await o.store.write({ ...emptyBatch(), failures: fs, extensions: [ctx!.extension] });
      const feedback = new FeedbackStore(sql);
      await feedback.record(
        [{ traceId: B, value: -1, source: 'api', origin: 'api', timeMs: NOW - 30_000, comment: 'useless' }],
        NOW,
        async () => new Map(),
      );
      const judge = new JudgeStore(sql);
      const runId = await judge.verdicts.startRun(NOW - 20_000, 'v1', 'judge');
      await judge.verdicts.recordVerdict({
        traceId: A,
        runId,
        timeMs: NOW - 10_000,
        service: 'shop',
        model: 'gpt-4o',
        status: 'ok',
        verdict: { reached_goal: false, unnecessary_calls: 1, dangerous_calls: 0, reasoning: 'asked the wrong thing' },
        promptVersion: 'v1',
        judgeModel: 'judge',
        probability: 1,
        weight: 1,
        inputTokens: 1,
        outputTokens: 1,
        cost: 0,
      });
      const src = { sql, judge, feedback, redactor: () => createRedactor({ fields: [], patterns: [] }) };
      const run = async (raw: Record<string, string>) => {
        const f = parseExportFilters({ since: '1h', ...raw }, NOW, { limit: 100 });
        if (!f.ok) throw new Error(f.problems.join('; '));
        return exportCases(src, f.value);
      };

      const all = await run({});
      expect(all.cases.map((c) => c.trace_id)).toEqual([A, B, C]);
      const a = all.cases[0]!;
      expect(a.messages).toEqual([{ role: 'user', content: 'Where is ORD-1? mail me at [EMAIL]' }]);
      expect(a.tools).toEqual([{ type: 'function', ...tools[0] }]);
      expect(a.observed).toEqual({
        calls: [
          {
            name: 'lookup_order',
            arguments: '{"order":"ORD-1"}',
            outcome: 'SchemaMismatch',
            errors: ["/ must have required property 'order_id'"],
          },
        ],
      });
      expect(a.metadata).toMatchObject({
        origin: 'failure_record',
        partial: true,
        verdict: { reached_goal: false, reasoning: 'asked the wrong thing' },
      });
      expect(a.tags).toEqual(['production', 'SchemaMismatch', 'goal-missed']);
      expect(all.cases[1]!.metadata.feedback).toEqual({ value: -1, comments: ['useless'], sources: ['api'] });

      expect((await run({ outcome: 'InvalidJson' })).cases.map((c) => c.trace_id)).toEqual([B]);
      expect((await run({ feedback: 'negative' })).cases.map((c) => c.trace_id)).toEqual([B]);
      expect((await run({ judge: 'reached_goal=false' })).cases.map((c) => c.trace_id)).toEqual([A]);
      expect((await run({ judge: 'unnecessary_calls>=2' })).cases).toEqual([]);
      expect((await run({ service: 'billing' })).cases.map((c) => c.trace_id)).toEqual([C]);
      expect((await run({ trace_id: B.toUpperCase() })).cases.map((c) => c.trace_id)).toEqual([B]);
      expect((await run({ limit: '2' })).summary).toMatchObject({ cases: 2, truncated: true });
    },
  );
});
