/**
 * Gives a toolwatch database the minute aggregates of `hours` of traffic, as an instance that ran
 * that long at the benchmark's rate would have: the mix of one short ingest phase (every
 * service × model × tool × outcome row and every execution row it wrote, scaled to a whole minute
 * at that rate) repeated for every minute of the past `hours`. Written through the store's own
 * port (openStore + Store.write from the build under test, one WriteBatch per minute), with
 * toolwatch stopped, so the rows are exactly what ingest would have left.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const MINUTE = 60_000;

/**
 * @param {{ dist: string, dbPath: string, hours: number, learnedSeconds: number, beforeMs: number }} o
 *   beforeMs: the first minute of the learning phase (the preloaded minutes end before it)
 * @returns {Promise<{ minutes: number, callRows: number, executionRows: number, callsPerMinute: number }>}
 */
export async function preloadMinutes({ dist, dbPath, hours, learnedSeconds, beforeMs }) {
  const { openStore } = await import(pathToFileURL(path.join(dist, 'store/open.js')).href);
  const quiet = { warn() {}, info() {}, error() {}, debug() {} };
  const store = await openStore(
    {
      database: { kind: 'sqlite', path: dbPath },
      store: { sqliteSynchronous: 'NORMAL', sqliteBusyTimeoutMs: 5000 },
    },
    quiet,
  );
  try {
    const scale = 60 / learnedSeconds;
    const calls = await store.sql.all(
      'SELECT source, service, model, tool, outcome, reason, SUM(count) AS n FROM call_minutes GROUP BY source, service, model, tool, outcome, reason',
      [],
    );
    const executions = await store.sql.all(
      'SELECT source, service, model, tool, status, call_outcome, SUM(count) AS n FROM execution_minutes GROUP BY source, service, model, tool, status, call_outcome',
      [],
    );
    if (!calls.length) throw new Error('preload: the learning phase wrote no minute aggregates');
    const last = Math.floor(beforeMs / MINUTE) * MINUTE - MINUTE;
    const minutes = hours * 60;
    let callsPerMinute = 0;
    for (const r of calls) callsPerMinute += Math.max(1, Math.round(Number(r.n) * scale));
    const writes = [];
    for (let i = 0; i < minutes; i++) {
      const minute = last - i * MINUTE;
      writes.push(
        store.write({
          callAggregates: calls.map((r) => ({
            minute,
            source: r.source,
            service: r.service,
            model: r.model,
            tool: r.tool,
            outcome: r.outcome,
            reason: r.reason,
            count: Math.max(1, Math.round(Number(r.n) * scale)),
          })),
          executionAggregates: executions.map((r) => ({
            minute,
            source: r.source,
            service: r.service,
            model: r.model,
            tool: r.tool,
            status: r.status,
            callOutcome: r.call_outcome,
            count: Math.max(1, Math.round(Number(r.n) * scale)),
          })),
          failures: [],
          failureDrops: [],
          pendingAdd: [],
          pendingRemove: [],
          extensions: [],
        }),
      );
      // Group commits of a few hundred minutes at a time keep the orchestrator's memory flat.
      if (writes.length >= 200) await Promise.all(writes.splice(0));
    }
    await Promise.all(writes);
    return { minutes, callRows: calls.length * minutes, executionRows: executions.length * minutes, callsPerMinute };
  } finally {
    await store.close();
  }
}
