/**
 * The feedback store and the failure contexts over the store's SQL port, on SQLite and PostgreSQL
 * alike: latest value per trace and source (an older item never replaces a newer one), rates per
 * service, the judge's negative-feedback lookup, service resolution, retention.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FeedbackStore } from '../../src/feedback/store.js';
import type { FeedbackItem } from '../../src/feedback/value.js';
import type { SpanFacts } from '../../src/model.js';
import { storeRedactor, type StoreRedactor } from '../../src/redact/stored.js';
import { failureContextExtension, loadFailureContexts, pruneFailureContexts } from '../../src/replay/context.js';
import { emptyBatch, type FailureRecord } from '../../src/store/store.js';
import { storeEngines } from '../helpers/engines.js';

const engines = storeEngines;

const T = (c: string) => c.repeat(32);
const item = (traceId: string, value: number, timeMs: number, extra: Partial<FeedbackItem> = {}): FeedbackItem => ({
  traceId,
  value,
  timeMs,
  source: 'api',
  origin: 'api',
  ...extra,
});
const noResolve = async () => new Map<string, string>();

let open: { dispose(): Promise<void> } | undefined;
afterEach(async () => {
  await open?.dispose();
  open = undefined;
});

describe.each(engines)('$name', (engine) => {
  it.skipIf(engine.skip)(
    'feedback: latest per trace and source, rates, negative lookup, services, retention',
    async () => {
      const o = await engine.open();
      open = o;
      const fb = new FeedbackStore(o.store.sql);
      const r1 = await fb.record(
        [
          item(T('a'), -1, 1000, { service: 'shop', comment: 'no' }),
          item(T('b'), 1, 1000),
          item(T('c'), 0, 1000, { service: 'shop' }),
        ],
        5000,
        async (ids) => new Map(ids.map((id) => [id, 'resolved'])),
      );
      expect(r1.stored).toBe(3);
      expect(r1.counted.map((c) => [c.traceId, c.service])).toEqual([
        [T('a'), 'shop'],
        [T('b'), 'resolved'],
        [T('c'), 'shop'],
      ]);
      // An older item (an overlap re-read) does not replace the newer one; a newer one does.
      const r2 = await fb.record([item(T('a'), 1, 500), item(T('b'), -0.5, 2000)], 6000, noResolve);
      expect(r2.stored).toBe(1);
      expect(r2.counted.map((c) => [c.traceId, c.value, c.service])).toEqual([[T('b'), -0.5, 'resolved']]);
      await fb.record([item(T('a'), 1, 1500, { source: 'langfuse', origin: 'langfuse' })], 7000, noResolve);

      expect(await fb.negativeTraces([T('a'), T('b'), T('c'), T('d')])).toEqual(new Set([T('a'), T('b')]));
      expect(await fb.rates({ sinceMs: 0, untilMs: 10_000 })).toEqual([
        { service: 'resolved', traces: 1, negative: 1 },
        { service: 'shop', traces: 2, negative: 1 },
      ]);
      expect(await fb.rates({ sinceMs: 1200, untilMs: 10_000, service: 'shop' })).toEqual([
        { service: 'shop', traces: 1, negative: 0 },
      ]);
      const neg = await fb.traces({ sinceMs: 0, bucket: 'negative', limit: 10 });
      expect(neg.map((t) => [t.traceId, t.value, t.bucket])).toEqual([
        [T('b'), -0.5, 'negative'],
        [T('a'), -1, 'negative'],
      ]);
      expect(neg[1]!.comments).toEqual(['no']);
      expect(neg[1]!.sources.sort()).toEqual(['api', 'langfuse']);

      await o.store.write({
        ...emptyBatch(),
        failures: [
          {
            timeMs: 1,
            source: 'otlp',
            service: 'billing',
            model: 'm',
            tool: 't',
            name: 't',
            outcome: 'InvalidJson',
            traceId: T('e'),
            spanId: '1'.repeat(16),
            errors: [],
            message: 'x',
          },
        ],
      });
      expect(await fb.servicesOf([T('e'), T('f')])).toEqual(new Map([[T('e'), 'billing']]));
      expect(await fb.prune(1600)).toBe(3);
      expect((await fb.traces({ sinceMs: 0, limit: 10 })).map((t) => t.traceId)).toEqual([T('b')]);
    },
  );

  it.skipIf(engine.skip)(
    'failure contexts: kept for the batch’s stored failures only, tool sets once by content',
    async () => {
      const o = await engine.open();
      open = o;
      const tools = [
        { name: 'lookup', description: 'Find', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
      ];
      const facts = (spanId: string, user?: string): SpanFacts => ({
        dialect: 'genai',
        traceId: T('a'),
        spanId,
        parentSpanId: '',
        service: 's',
        startTimeMs: 0,
        endTimeMs: 1,
        role: 'model',
        offered: tools,
        proposals: [],
        replays: [],
        ...(user ? { userMessage: user } : {}),
      });
      const failure = (spanId: string): FailureRecord => ({
        timeMs: 1,
        source: 'otlp',
        service: 's',
        model: 'm',
        tool: 'lookup',
        name: 'lookup',
        outcome: 'SchemaMismatch',
        traceId: T('a'),
        spanId,
        errors: [],
        message: 'x',
      });
      const ext = failureContextExtension(
        [failure('1'.repeat(16)), failure('2'.repeat(16))],
        [
          facts('1'.repeat(16), 'Where is\u0000 my order?'),
          facts('2'.repeat(16)),
          facts('3'.repeat(16), 'not failing'),
        ],
        100,
        storeRedactor('secrets'),
      );
      expect(ext!.redactionFailures).toBe(0);
      await o.store.write({ ...emptyBatch(), extensions: [ext!.extension] });
      const ctx = await loadFailureContexts(o.store.sql, [
        { traceId: T('a'), spanId: '1'.repeat(16) },
        { traceId: T('a'), spanId: '2'.repeat(16) },
        { traceId: T('a'), spanId: '3'.repeat(16) },
      ]);
      expect(ctx.get(`${T('a')}\u0000${'1'.repeat(16)}`)).toEqual({ userMessage: 'Where is\uFFFD my order?', tools });
      expect(ctx.get(`${T('a')}\u0000${'2'.repeat(16)}`)).toEqual({ tools });
      expect(ctx.has(`${T('a')}\u0000${'3'.repeat(16)}`)).toBe(false);
      const sets = await o.store.sql.all<{ n: unknown }>('SELECT COUNT(*) AS n FROM tool_sets');
      expect(Number(sets[0]!.n)).toBe(1);
      expect(await pruneFailureContexts(o.store.sql, 101)).toBe(3);
    },
  );

  it.skipIf(engine.skip)(
    'failure contexts: the user’s message is stored redacted (store.redact_arguments), and fails closed',
    async () => {
      const o = await engine.open();
      open = o;
      const facts = (spanId: string, user: string): SpanFacts => ({
        dialect: 'genai',
        traceId: T('c'),
        spanId,
        parentSpanId: '',
        service: 's',
        startTimeMs: 0,
        endTimeMs: 1,
        role: 'model',
        proposals: [],
        replays: [],
        userMessage: user,
      });
      const failure = (spanId: string): FailureRecord => ({
        timeMs: 1,
        source: 'otlp',
        service: 's',
        model: 'm',
        tool: 'lookup',
        name: 'lookup',
        outcome: 'InvalidJson',
        traceId: T('c'),
        spanId,
        errors: [],
        message: 'x',
      });
      const secret = 'sk-live-51HqLyjWDarjtT1zdp7dcXyZ0123456789abcdef';
      const planted = `my api_key=${secret}, password: hunter2-hunter2 and card 4111 1111 1111 1111`;
      const masked = failureContextExtension(
        [failure('4'.repeat(16))],
        [facts('4'.repeat(16), planted)],
        5,
        storeRedactor('pii'),
      );
      // A redactor that cannot handle the value: nothing of it is stored, the reason is.
      const broken: StoreRedactor = {
        level: 'secrets',
        json: () => ({ ok: false, reason: 'redaction failed (RangeError: too deep); not stored' }),
        text: () => ({ ok: false, reason: 'redaction failed (RangeError: too deep); not stored' }),
      };
      const refused = failureContextExtension([failure('5'.repeat(16))], [facts('5'.repeat(16), planted)], 5, broken);
      expect(masked!.redactionFailures).toBe(0);
      expect(refused!.redactionFailures).toBe(1);
      await o.store.write({ ...emptyBatch(), extensions: [masked!.extension, refused!.extension] });
      const rows = await o.store.sql.all<Record<string, unknown>>(
        'SELECT span_id, user_message, user_message_omitted FROM failure_contexts ORDER BY span_id',
      );
      const all = JSON.stringify(rows);
      expect(all).not.toContain(secret);
      expect(all).not.toContain('hunter2');
      expect(all).not.toContain('4111 1111');
      expect(String(rows[0]!.user_message)).toContain('my api_key=');
      expect(rows[0]!.user_message_omitted ?? null).toBeNull();
      expect(rows[1]!.user_message ?? null).toBeNull();
      expect(rows[1]!.user_message_omitted).toBe('redaction failed (RangeError: too deep); not stored');
      const ctx = await loadFailureContexts(o.store.sql, [{ traceId: T('c'), spanId: '5'.repeat(16) }]);
      expect(ctx.get(`${T('c')}\u0000${'5'.repeat(16)}`)).toEqual({
        userMessageOmitted: 'redaction failed (RangeError: too deep); not stored',
      });
    },
  );
});
