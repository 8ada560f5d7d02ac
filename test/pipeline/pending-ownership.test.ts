/**
 * Calls known only from their tool span wait out `dedupe.execution_grace` in pending_calls (issue 8,
 * Medium 6). With several replicas on one PostgreSQL, exactly one process counts each: a process
 * holds the rows it wrote under a lease it renews, takes over only rows whose holder is gone (its
 * lease ran out, or it released them when it stopped), and counts a row only while it still holds
 * it. On SQLite one process serves a file: a restart takes every row.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Span } from '../../src/model.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { makeSpan } from '../helpers/spans.js';

const GRACE_MS = 200;
const LEASE_MS = 1_500;

/** A tool span alone (no proposal anywhere): held for the grace period, then counted as unvalidated. */
function toolOnly(traceId: string, name: string): Span {
  return makeSpan(
    { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': `call-${name}` },
    {
      traceId,
      spanId: `${traceId.slice(0, 12)}0001`,
      startTimeMs: Date.now(),
      endTimeMs: Date.now(),
      service: 'owners',
    },
  );
}

const traceOf = (n: number): string => n.toString(16).padStart(32, 'a');

let open: Harness[] = [];
afterEach(async () => {
  for (const h of open) await h.close().catch(() => undefined);
  open = [];
});

async function replica(databaseUrl: string, extra: Record<string, unknown> = {}): Promise<Harness> {
  const h = await startToolwatch({
    config: {
      ...(databaseUrl ? { database_url: databaseUrl } : {}),
      dedupe: { execution_grace: `${GRACE_MS}ms`, pending_lease: `${LEASE_MS}ms` },
      ...extra,
    },
    listen: false,
  });
  open.push(h);
  return h;
}

/** Calls per tool in the store (every process's counts together). */
async function stored(h: Harness): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of await h.services.store.callCounts({ sinceMs: 0 })) out[r.tool] = (out[r.tool] ?? 0) + r.count;
  return out;
}

async function eventually(fn: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const settleWindow = () => new Promise((r) => setTimeout(r, GRACE_MS + 600));

describe.skipIf(pgServer().skip)('waiting calls with two replicas on one PostgreSQL', () => {
  const made: string[] = [];
  afterAll(async () => {
    for (const u of made) await dropDatabase(u);
  });
  const db = async () => {
    const u = await freshDatabase();
    made.push(u);
    return u;
  };

  it('a replica that starts while another waits on a call does not count that call too', async () => {
    const url = await db();
    const a = await replica(url);
    await a.services.pipeline.ingestSpans([toolOnly(traceOf(1), 'lookup_a')]);
    const b = await replica(url);
    await b.services.pipeline.ingestSpans([toolOnly(traceOf(2), 'lookup_b')]);
    await settleWindow();
    await eventually(async () => Object.keys(await stored(a)).length === 2);
    await settleWindow();
    expect(await stored(a)).toEqual({ lookup_a: 1, lookup_b: 1 });
  });

  it('rolling restart: a stopped replica releases its waiting calls, the live one counts them once', async () => {
    const url = await db();
    const a = await replica(url, { dedupe: { execution_grace: '1s', pending_lease: `${LEASE_MS}ms` } });
    const b = await replica(url, { dedupe: { execution_grace: '1s', pending_lease: `${LEASE_MS}ms` } });
    await a.services.pipeline.ingestSpans([toolOnly(traceOf(3), 'held_by_a')]);
    await b.services.pipeline.ingestSpans([toolOnly(traceOf(4), 'held_by_b')]);
    await a.stop(); // inside the grace period
    const a2 = await replica(url, { dedupe: { execution_grace: '1s', pending_lease: `${LEASE_MS}ms` } });
    await b.stop();
    const b2 = await replica(url, { dedupe: { execution_grace: '1s', pending_lease: `${LEASE_MS}ms` } });
    await eventually(async () => Object.keys(await stored(a2)).length === 2);
    await new Promise((r) => setTimeout(r, LEASE_MS + 1_000));
    expect(await stored(b2)).toEqual({ held_by_a: 1, held_by_b: 1 });
    expect((await a2.services.store.loadPending()).length).toBe(0);
  });

  it('a replica gone without a word is taken over after its lease; it counts nothing it no longer holds', async () => {
    const url = await db();
    const a = await replica(url);
    const b = await replica(url);
    // A stalls: its jobs stop (no settling, no lease renewal) but it is not gone.
    a.services.scheduler.stop();
    await a.services.pipeline.ingestSpans([toolOnly(traceOf(5), 'stalled')]);
    await eventually(async () => (await stored(b))['stalled'] === 1, LEASE_MS * 4);
    // A wakes up and settles what it still thinks it holds: B took it over, so A counts nothing.
    expect(await a.services.pipeline.settle(Date.now() + 60_000)).toBe(0);
    expect(await stored(b)).toEqual({ stalled: 1 });
    expect((await a.services.store.loadPending()).length).toBe(0);
  });
});

describe('waiting calls on SQLite: one process per file', () => {
  it('a process started after a crash takes every waiting call at once, without waiting for a lease', async () => {
    const a = await replica('', { dedupe: { execution_grace: `${GRACE_MS}ms`, pending_lease: '1h' } });
    const dbPath = a.services.config.database.kind === 'sqlite' ? a.services.config.database.path : '';
    a.services.scheduler.stop(); // a crash: nothing settles, nothing is released
    await a.services.pipeline.ingestSpans([toolOnly(traceOf(6), 'crashed')]);
    const b = await replica(dbPath, { dedupe: { execution_grace: `${GRACE_MS}ms`, pending_lease: '1h' } });
    await eventually(async () => (await stored(b))['crashed'] === 1);
    expect(await a.services.pipeline.settle(Date.now() + 60_000)).toBe(0);
    expect(await stored(b)).toEqual({ crashed: 1 });
  });
});
