/**
 * PostgreSQL's write path: the statements that apply many batches in one transaction, one per core
 * table over unnest() arrays, then the features' statements in the batches' order — all sent in one
 * round trip, prepared once per connection (pg-statements.ts). Rows with the same key are merged first
 * (one INSERT … ON CONFLICT DO UPDATE cannot touch a row twice) and every table's rows are sorted by
 * key, so two replicas writing the same minutes lock rows in one order and never deadlock.
 */
import { sortedGroupCounts } from './group-counts.js';
import { runExtensions, writeMergedRows } from './group-extensions.js';
import type { Statement } from './pg-statements.js';
import type { PendingRow, WriteBatch } from './store.js';

/** The statements that apply many batches (to run in order in one transaction): one per core table, then the features'. */
export function groupStatements(batches: WriteBatch[]): Statement[] {
  // Summed per key as SQLite's group commit sums them, then sorted by key (group-counts.ts).
  const { callAggregates: calls, executionAggregates: execs, failureDrops: drops } = sortedGroupCounts(batches);
  const failures = batches.flatMap((b) => b.failures);
  const pending = netPending(batches);
  const statements: Statement[] = [];
  const run = (sql: string, params: readonly unknown[] = []) => void statements.push([sql, params]);

  if (calls.length > 0) {
    run(
      `INSERT INTO call_minutes (minute, source, service, model, tool, outcome, reason, count)
       SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[])
       ON CONFLICT (minute, source, service, model, tool, outcome, reason)
       DO UPDATE SET count = call_minutes.count + excluded.count`,
      [
        calls.map((r) => r.minute),
        calls.map((r) => r.source),
        calls.map((r) => r.service),
        calls.map((r) => r.model),
        calls.map((r) => r.tool),
        calls.map((r) => r.outcome),
        calls.map((r) => r.reason),
        calls.map((r) => r.count),
      ],
    );
  }
  if (execs.length > 0) {
    run(
      `INSERT INTO execution_minutes (minute, source, service, model, tool, status, call_outcome, count)
       SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                            ?::bigint[])
       ON CONFLICT (minute, source, service, model, tool, status, call_outcome)
       DO UPDATE SET count = execution_minutes.count + excluded.count`,
      [
        execs.map((r) => r.minute),
        execs.map((r) => r.source),
        execs.map((r) => r.service),
        execs.map((r) => r.model),
        execs.map((r) => r.tool),
        execs.map((r) => r.status),
        execs.map((r) => r.callOutcome),
        execs.map((r) => r.count),
      ],
    );
  }
  if (failures.length > 0) {
    // unnest keeps the array order, so ids follow arrival order as in SQLite.
    run(
      `INSERT INTO failures (time_ms, source, service, model, tool, name, outcome, trace_id, span_id, call_id, arguments, errors, message,
         arguments_omitted, reason)
       SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                            ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                            ?::text[])`,
      [
        failures.map((f) => f.timeMs),
        failures.map((f) => f.source),
        failures.map((f) => f.service),
        failures.map((f) => f.model),
        failures.map((f) => f.tool),
        failures.map((f) => f.name),
        failures.map((f) => f.outcome),
        failures.map((f) => f.traceId),
        failures.map((f) => f.spanId),
        failures.map((f) => f.callId ?? null),
        failures.map((f) => f.arguments ?? null),
        failures.map((f) => JSON.stringify(f.errors)),
        failures.map((f) => f.message),
        failures.map((f) => f.argumentsOmitted ?? null),
        failures.map((f) => f.reason ?? null),
      ],
    );
  }
  if (drops.length > 0) {
    run(
      `INSERT INTO failure_drops (minute, service, tool, dropped)
       SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::bigint[])
       ON CONFLICT (minute, service, tool) DO UPDATE SET dropped = failure_drops.dropped + excluded.dropped`,
      [drops.map((d) => d.minute), drops.map((d) => d.service), drops.map((d) => d.tool), drops.map((d) => d.dropped)],
    );
  }
  if (pending.remove.length > 0) {
    run(
      `DELETE FROM pending_calls p USING unnest(?::text[], ?::text[]) AS r(trace_id, call_key)
       WHERE p.trace_id = r.trace_id AND p.call_key = r.call_key`,
      [pending.remove.map((r) => r.traceId), pending.remove.map((r) => r.callKey)],
    );
  }
  if (pending.add.length > 0) {
    // As SQLite's INSERT OR REPLACE: a call deferred again replaces its row (and this process holds it).
    run(
      `INSERT INTO pending_calls (trace_id, call_key, due_ms, payload, owner)
       SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[])
       ON CONFLICT (trace_id, call_key)
       DO UPDATE SET due_ms = excluded.due_ms, payload = excluded.payload, owner = excluded.owner`,
      [
        pending.add.map((p) => p.traceId),
        pending.add.map((p) => p.callKey),
        pending.add.map((p) => p.dueMs),
        pending.add.map((p) => p.payload),
        pending.add.map((p) => p.owner ?? null),
      ],
    );
  }
  const ledger = batches.flatMap((b) => (b.ledger ? [b.ledger] : []));
  if (ledger.length > 0) {
    run('INSERT INTO ledger_batches (time_ms, traces, body) SELECT * FROM unnest(?::bigint[], ?::int[], ?::text[])', [
      ledger.map((r) => r.timeMs),
      ledger.map((r) => r.traces),
      ledger.map((r) => r.body),
    ]);
  }
  // Extensions only write: their statements follow, in order, on the same transaction. Of a group,
  // the rows they mark mergeable go once, summed and sorted by key (group-extensions.ts), then each
  // batch's rest: a group of 16 batches sent and upserted its definition-version and minute rows 16
  // times, most of them the same keys.
  const tx = { run };
  if (batches.length === 1) runExtensions(tx, batches[0]!.extensions, false);
  else {
    writeMergedRows(tx, batches);
    for (const b of batches) runExtensions(tx, b.extensions, true);
  }
  return statements;
}

/**
 * The pending-call changes of many batches as one net change per (trace, call key): applied in
 * order (each batch's adds, then its removes) the last word on a key wins, exactly as applying the
 * batches one by one would leave the table. Sorted by key, for the same lock order everywhere.
 */
function netPending(batches: WriteBatch[]): { add: PendingRow[]; remove: { traceId: string; callKey: string }[] } {
  const last = new Map<string, { traceId: string; callKey: string; row: PendingRow | null }>();
  for (const b of batches) {
    for (const p of b.pendingAdd)
      last.set(keyId([p.traceId, p.callKey]), { traceId: p.traceId, callKey: p.callKey, row: p });
    for (const p of b.pendingRemove)
      last.set(keyId([p.traceId, p.callKey]), { traceId: p.traceId, callKey: p.callKey, row: null });
  }
  const sorted = [...last.values()].sort((a, b) => compareKeys([a.traceId, a.callKey], [b.traceId, b.callKey]));
  return {
    add: sorted.flatMap((e) => (e.row ? [e.row] : [])),
    remove: sorted.filter((e) => !e.row).map(({ traceId, callKey }) => ({ traceId, callKey })),
  };
}

/**
 * One string per key, distinct for distinct keys: the parts each followed by U+0000, which text
 * bound for SQL never holds (storable-text.ts); a part that does holds it falls back to JSON, whose
 * strings never hold a raw U+0000 (it escapes it). Cheaper than JSON for every row of a group.
 */
function keyId(k: readonly (string | number)[]): string {
  let id = '';
  for (const part of k) {
    if (typeof part === 'string' && part.includes('\u0000')) return JSON.stringify(k);
    id += `${part}\u0000`;
  }
  return id;
}

export function compareKeys(a: (string | number)[], b: (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}
