/**
 * No batch can freeze the process or poison itself through the checker (issue 17, findings 1 and 6),
 * over a real socket: a `uniqueItems` array of 10,000 objects, 1,000 distinct schemas in one batch,
 * and arguments nested 12,000 deep under a recursive schema next to another tenant's span. Each is
 * answered 200, whatever could not be checked within its bound is `unvalidated` with its reason, and
 * the other spans of the batch are counted. A batch toolwatch itself fails to process is answered
 * 500 (OTLP clients do not retry it), never 503 (which they would resend forever).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinKinds } from '../../../src/kinds.js';
import type { SpanFacts } from '../../../src/model.js';
import type { DialectReader } from '../../../src/normalize/dialect.js';
import { metricValue, startToolwatch, type Harness } from '../../helpers/harness.js';
import { chatResourceSpans } from '../../helpers/otlp-json.js';

let tw: Harness | undefined;
afterEach(async () => {
  await tw?.close();
  tw = undefined;
});

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const END_MS = Date.now() - 60_000;

interface CallSpec {
  service: string;
  tool: string;
  schema: unknown;
  args: string;
}

/** One chat span per call, each in its own trace, all in one OTLP/JSON body. */
function batch(calls: readonly CallSpec[], seed = 0): string {
  return JSON.stringify({
    resourceSpans: calls.map((c, i) =>
      chatResourceSpans({
        service: c.service,
        traceId: hex(seed * 1_000_000 + i + 1, 32),
        spanId: hex(i + 1, 16),
        definitions: JSON.stringify([{ type: 'function', name: c.tool, parameters: c.schema }]),
        call: { id: `call_${seed}_${i}`, name: c.tool, arguments: c.args },
        endMs: END_MS,
      }),
    ),
  });
}

async function post(h: Harness, body: string): Promise<Response> {
  return fetch(`${h.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

/** The longest the event loop was held while `work` ran (perf_hooks' histogram, in ms). */
async function longestBlock<T>(work: () => Promise<T>): Promise<{ result: T; maxMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  try {
    const result = await work();
    return { result, maxMs: h.max / 1e6 };
  } finally {
    h.disable();
  }
}

const unvalidated = async (h: Harness, reason: string) =>
  metricValue(await h.metrics(), 'toolwatch_unvalidated_calls_total', { reason });
const calls = async (h: Harness, labels: Record<string, string>) =>
  metricValue(await h.metrics(), 'toolwatch_tool_calls_total', labels);

describe('a batch cannot freeze the process (finding 1)', () => {
  const listSchema = {
    type: 'object',
    properties: { rows: { type: 'array', uniqueItems: true, items: { type: 'object' } } },
    required: ['rows'],
  };
  const rows = (n: number, dup: boolean) =>
    JSON.stringify({ rows: Array.from({ length: n }, (_, i) => ({ id: dup && i === n - 1 ? 0 : i, k: 'v' })) });

  it('uniqueItems over 10,000 objects is checked in linear time, /healthz answering meanwhile', async () => {
    // Checked in full however loaded the machine is: what this proves is the loop never held for long.
    tw = await startToolwatch({ config: { check: { validation_time_per_batch: '30s' } } });
    const h = tw;
    // The control: the same arrays under the same schema without uniqueItems (decode, store, redaction alike).
    const plain = { ...listSchema, properties: { rows: { type: 'array', items: { type: 'object' } } } };
    const control = await longestBlock(() =>
      post(
        h,
        batch(
          [0, 1].map(() => ({ service: 'plain', tool: 'put_rows', schema: plain, args: rows(10_000, true) })),
          7,
        ),
      ),
    );
    expect(control.result.status).toBe(200);
    const body = batch([
      { service: 'lists', tool: 'put_rows', schema: listSchema, args: rows(10_000, false) },
      { service: 'lists', tool: 'put_rows', schema: listSchema, args: rows(10_000, true) },
    ]);
    const { result, maxMs } = await longestBlock(async () => {
      const ingest = post(h, body);
      const health = fetch(`${h.url}/healthz`);
      return Promise.all([ingest, health]);
    });
    expect(result.map((r) => r.status)).toEqual([200, 200]);
    // Ajv's pairwise compare held the loop ≈ 2 s per array on a quiet machine, 13 s with the suite
    // running (the control: under 1 s); linear, uniqueItems adds a fraction of what the rest costs.
    expect(maxMs).toBeLessThan(3 * control.maxMs + 250);
    expect(await calls(h, { service: 'lists', outcome: 'valid' })).toBe(1);
    expect(await calls(h, { service: 'lists', outcome: 'SchemaMismatch' })).toBe(1);
    // The failure keeps Ajv's own error: keyword, message and the pair of items.
    const failures = (await (await fetch(`${h.url}/api/failures?service=lists`)).json()) as {
      items: { errors: { keyword: string; message: string; params: object }[] }[];
    };
    expect(failures.items.flatMap((f) => f.errors)).toEqual([
      expect.objectContaining({
        keyword: 'uniqueItems',
        message: 'must NOT have duplicate items (items ## 0 and 9999 are identical)',
        params: { i: 9999, j: 0 },
      }),
    ]);
  });

  it('arguments over check.max_argument_bytes are unvalidated (too_large), not validated', async () => {
    tw = await startToolwatch({ config: { check: { max_argument_bytes: 100_000 } } });
    const res = await post(
      tw,
      batch([
        { service: 'lists', tool: 'put_rows', schema: listSchema, args: rows(10_000, true) },
        { service: 'lists', tool: 'put_rows', schema: listSchema, args: rows(10, true) },
      ]),
    );
    expect(res.status).toBe(200);
    expect(await unvalidated(tw, 'too_large')).toBe(1);
    expect(await calls(tw, { service: 'lists', outcome: 'SchemaMismatch' })).toBe(1);
  });

  /** A distinct schema per call, ≈ 2.7 KB each (the campaign's shape: 1,000 in a 2.7 MB batch). */
  const distinctSchema = (seed: number, i: number) => {
    const properties: Record<string, unknown> = {};
    for (let k = 0; k < 12; k++) {
      properties[`f${seed}_${i}_${k}`] = { type: 'string', maxLength: 100 + k, description: 'd'.repeat(150) };
    }
    return { type: 'object', properties, additionalProperties: false };
  };
  const distinctBatch = (seed: number, n: number) =>
    batch(
      Array.from({ length: n }, (_, i) => ({
        service: 'schemas',
        tool: `tool_${seed}_${i}`,
        schema: distinctSchema(seed, i),
        args: '{}',
      })),
      seed,
    );

  it('1,000 distinct schemas in one batch: bounded compile work, the rest unvalidated (budget)', async () => {
    tw = await startToolwatch();
    const cache = tw.services.pipeline['deps'].schemas;
    const res = await post(tw, distinctBatch(1, 1_000));
    expect(res.status).toBe(200);
    const compiled = cache.compiled;
    const bytes = JSON.stringify(distinctSchema(1, 0)).length;
    // check.compile_bytes_per_batch (64 KiB by default) holds this many of them, no more.
    expect(compiled).toBe(Math.floor((64 * 1024) / bytes));
    expect(await unvalidated(tw, 'budget')).toBe(1_000 - compiled);
    expect(await calls(tw, { service: 'schemas', outcome: 'valid' })).toBe(compiled);
    expect(await calls(tw, { service: 'schemas' })).toBe(1_000);

    // Fresh schemas batch after batch: the token's bucket (one minute's worth) bounds them over time.
    let more = 0;
    for (let seed = 2; seed <= 12; seed++) {
      expect((await post(tw, distinctBatch(seed, 100))).status).toBe(200);
      more = cache.compiled - compiled;
    }
    // 512 KiB a minute by default: ≈ 190 schemas of this size, plus what refilled during the test.
    expect(more).toBeLessThan(Math.ceil((512 * 1024) / bytes) + 60);
    expect(more).toBeGreaterThan(0);
  });

  it('a kilobyte of schema that would validate for an hour is stopped at the deadline (budget)', async () => {
    tw = await startToolwatch();
    const h = tw;
    // Thirty levels of allOf over two refs to the next: Ajv evaluates the value 2^30 times.
    const $defs: Record<string, unknown> = { a30: { type: 'string' } };
    for (let i = 0; i < 30; i++)
      $defs[`a${i}`] = { allOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
    const slow = { type: 'object', properties: { x: { $ref: '#/$defs/a0' } }, $defs };
    const body = batch([
      { service: 'slow', tool: 'walk', schema: slow, args: '{"x":1}' },
      { service: 'slow', tool: 'put_rows', schema: listSchema, args: rows(3, false) },
    ]);
    const { result, maxMs } = await longestBlock(() => post(h, body));
    expect(result.status).toBe(200);
    // check.validation_time_per_batch is 500 ms; the generous bound is for a loaded machine (without
    // the deadline this batch held the process for about an hour).
    expect(maxMs).toBeLessThan(5_000);
    expect(await unvalidated(h, 'budget')).toBe(1);
    expect(await calls(h, { service: 'slow', outcome: 'valid' })).toBe(1);
  });
});

describe('a recursive schema cannot poison a batch (finding 6)', () => {
  const tree = {
    $ref: '#/definitions/node',
    definitions: {
      node: { type: 'object', properties: { child: { $ref: '#/definitions/node' }, v: { type: 'string' } } },
    },
  };
  const nested = (depth: number) => `${'{"child":'.repeat(depth)}{"v":"leaf"}${'}'.repeat(depth)}`;
  const weather = {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  };

  it.each([
    ['at the default check.max_argument_depth (64)', undefined],
    ['with check.max_argument_depth raised to its maximum (1000)', 1000],
  ])(
    'arguments 12,000 deep: 200 on every resend, that call unvalidated (too_deep), the other tenant counted — %s',
    async (_, depth) => {
      tw = await startToolwatch({ config: depth ? { check: { max_argument_depth: depth } } : {} });
      const body = batch([
        { service: 'team-a', tool: 'walk', schema: tree, args: nested(500) },
        { service: 'team-a', tool: 'walk', schema: tree, args: nested(12_000) },
        { service: 'team-b', tool: 'weather', schema: weather, args: '{"city":"Oslo"}' },
        { service: 'team-b', tool: 'weather', schema: weather, args: '{"town":"Oslo"}' },
      ]);
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await post(tw, body);
        expect(res.status).toBe(200);
      }
      const m = await tw.metrics();
      // 500 deep is within the raised cap: validated (and valid); past the default it is not validated.
      const deep = depth ? 1 : 2;
      expect(metricValue(m, 'toolwatch_unvalidated_calls_total', { service: 'team-a', reason: 'too_deep' })).toBe(deep);
      expect(metricValue(m, 'toolwatch_tool_calls_total', { service: 'team-a', outcome: 'valid' })).toBe(2 - deep);
      expect(metricValue(m, 'toolwatch_tool_calls_total', { service: 'team-b', outcome: 'valid' })).toBe(1);
      expect(metricValue(m, 'toolwatch_tool_calls_total', { service: 'team-b', outcome: 'SchemaMismatch' })).toBe(1);
      expect(metricValue(m, 'toolwatch_duplicate_spans_total')).toBe(4);
    },
  );

  it('a batch toolwatch fails to process is answered 500, not 503, and readiness stays up', async () => {
    // A reader that breaks its contract (no proposals array): processing fails the same way every time.
    const broken: DialectReader = {
      name: 'broken',
      matches: (span) => span.service === 'broken',
      read: (span) => ({ traceId: span.traceId, spanId: span.spanId, service: span.service }) as unknown as SpanFacts,
    };
    const kinds = builtinKinds();
    kinds.dialects.add(broken, { before: 'genai' });
    tw = await startToolwatch({ services: { kinds } });
    const body = batch([{ service: 'broken', tool: 'weather', schema: weather, args: '{"city":"Oslo"}' }]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await post(tw, body);
      expect(res.status).toBe(500);
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect(metricValue(await tw.metrics(), 'toolwatch_ingest_rejected_total', { reason: 'unprocessable' })).toBe(2);
    expect((await fetch(`${tw.url}/readyz`)).status).toBe(200);
  });
});
