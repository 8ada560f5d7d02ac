/**
 * The dedupe memory survives the process (README: Reliability). Each batch's record — the
 * tool-bearing spans it took and the calls it counted or changed, per trace — is written in the
 * batch's own transaction (WriteBatch.ledger, table ledger_batches), and a process loads the newest
 * records into its ledger when it starts. So a batch recorded just before a crash and resent to the
 * next process is a duplicate, and a tool span (or a Langfuse TOOL) whose proposal the previous
 * process counted pairs with it instead of being counted again.
 *
 * Bounded like the memory itself: a process loads at most `max_traces` traces, none idle for longer
 * than `trace_ttl` before the newest record (the time a process was down does not age the memory);
 * the table is pruned to the same age and to about twice `max_traces` traces.
 *
 * A record is compact JSON: `[2, [model…], [traceId, [spanId…], [key, name, flags, …]], …]`, flags as
 * bits (1 the call has an id, 2 executed, 4 known from its tool span alone, 8 from a summary; bits 4–6
 * the outcome it was counted with, 1 + its index in OUTCOMES, 0 not counted yet; from bit 7 on the
 * index of its model label in the record's model list; the key `!overflow` marks a trace past its call cap). The outcome and model let an execution whose
 * call an earlier process counted be counted with them at once (executions.ts). Version 1 records
 * (no model list, no outcome) are still read.
 */
import { OUTCOMES, type OutcomeName } from '../model.js';
import type { LedgerRecord, Sql } from '../store/store.js';
import { num } from '../store/rows.js';
import { type CallEntry, type Ledger, OVERFLOW_KEY, type RecordedCall, type TakenInTrace } from './ledger.js';

const VERSION = 2;
const HAS_ID = 1;
const EXECUTED = 2;
const FROM_EXECUTION = 4;
const SUMMARY = 8;
const OUTCOME_SHIFT = 4;
const OUTCOME_MASK = 7;
const MODEL_SHIFT = 7;

/** The outcome and model label a call of this batch is counted with (not yet on its entry: that waits for the commit). */
export type CountedAs = (entry: CallEntry) => readonly [OutcomeName, string] | undefined;

/**
 * One batch's record; undefined when it took nothing (no tool-bearing span, no call). A call's outcome
 * and model come from `counted` (the calls this batch counts) or from its entry (counted before).
 */
export function journalRecord(
  taken: Iterable<TakenInTrace>,
  timeMs: number,
  counted?: CountedAs,
): LedgerRecord | undefined {
  const models: string[] = [];
  const out: unknown[] = [VERSION, models];
  for (const t of taken) {
    const calls: (string | number)[] = [];
    for (const [key, e] of t.calls) {
      let flags =
        (e.hasId ? HAS_ID : 0) |
        (e.executed ? EXECUTED : 0) |
        (e.fromExecution ? FROM_EXECUTION : 0) |
        (e.summary ? SUMMARY : 0);
      const as = counted?.(e) ?? (e.outcome !== undefined ? ([e.outcome, e.model ?? ''] as const) : undefined);
      if (as) {
        let m = models.indexOf(as[1]);
        if (m < 0) m = models.push(as[1]) - 1;
        flags += ((OUTCOMES.indexOf(as[0]) + 1) << OUTCOME_SHIFT) + m * 2 ** MODEL_SHIFT;
      }
      calls.push(key, e.name, flags);
    }
    // Read back as a call by a process that predates the mark: a key no sighting has, so harmless there.
    if (t.overflowed) calls.push(OVERFLOW_KEY, '', 0);
    out.push([t.traceId, t.spans, calls]);
  }
  return out.length > 2 ? { timeMs, traces: out.length - 2, body: JSON.stringify(out) } : undefined;
}

interface DecodedTrace {
  traceId: string;
  spans: string[];
  calls: [string, RecordedCall][];
}

const isStr = (v: unknown): v is string => typeof v === 'string';

/** A record's traces; undefined when this version cannot read it (it is skipped, never guessed at). */
export function decodeRecord(body: string): DecodedTrace[] | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!Array.isArray(doc) || (doc[0] !== 1 && doc[0] !== VERSION)) return undefined;
  // Version 2 has the record's model labels second; version 1 has no outcomes.
  const models: unknown = doc[0] === VERSION ? doc[1] : [];
  if (!Array.isArray(models) || !models.every(isStr)) return undefined;
  const out: DecodedTrace[] = [];
  for (let i = doc[0] === VERSION ? 2 : 1; i < doc.length; i++) {
    const t: unknown = doc[i];
    if (!Array.isArray(t) || !isStr(t[0]) || !Array.isArray(t[1]) || !Array.isArray(t[2]) || !t[1].every(isStr))
      return undefined;
    const flat = t[2] as unknown[];
    if (flat.length % 3 !== 0) return undefined;
    const calls: [string, RecordedCall][] = [];
    for (let k = 0; k < flat.length; k += 3) {
      const [key, name, flags] = [flat[k], flat[k + 1], flat[k + 2]];
      if (!isStr(key) || !isStr(name) || !Number.isSafeInteger(flags) || (flags as number) < 0) return undefined;
      const f = flags as number;
      const c: RecordedCall = {
        name,
        hasId: (f & HAS_ID) !== 0,
        executed: (f & EXECUTED) !== 0,
        fromExecution: (f & FROM_EXECUTION) !== 0,
      };
      if (f & SUMMARY) c.summary = true;
      const outcome = (f >> OUTCOME_SHIFT) & OUTCOME_MASK;
      if (outcome > 0) {
        const o = OUTCOMES[outcome - 1];
        const model = models[Math.floor(f / 2 ** MODEL_SHIFT)];
        if (o === undefined || model === undefined) return undefined;
        c.outcome = o;
        c.model = model;
      }
      calls.push([key, c]);
    }
    out.push({ traceId: t[0], spans: t[1] as string[], calls });
  }
  return out;
}

export interface JournalOptions {
  maxTraces: number;
  traceTtlMs: number;
}

export interface JournalLoad {
  records: number;
  traces: number;
  /** Records this version cannot read (skipped). */
  unreadable: number;
}

const PAGE = 500;
/** Newest records whose average size estimates how many records hold twice max_traces traces. */
const SAMPLE = 200;
/** The table keeps this many times max_traces (records of one trace often span several batches). */
const KEEP_FACTOR = 2;

/** The ledger_batches table over the store's SQL port. */
export class LedgerJournal {
  constructor(
    private readonly sql: Sql,
    private readonly opts: JournalOptions,
  ) {}

  /**
   * Loads the newest records into the ledger (at start-up, before anything is received). Their
   * times are moved forward by the time since the newest one, so the TTL counts only time a
   * process was up to see the traffic.
   */
  async load(ledger: Ledger, nowMs: number): Promise<JournalLoad> {
    const rows: { timeMs: number; traces: DecodedTrace[] }[] = [];
    const traces = new Set<string>();
    let unreadable = 0;
    let newest: number | undefined;
    let before = Number.MAX_SAFE_INTEGER;
    scan: for (;;) {
      const page = await this.sql.all(
        'SELECT id, time_ms, body FROM ledger_batches WHERE id < ? ORDER BY id DESC LIMIT ?',
        [before, PAGE],
      );
      for (const r of page) {
        before = num(r.id);
        const timeMs = num(r.time_ms);
        newest ??= timeMs;
        if (newest - timeMs > this.opts.traceTtlMs) break scan;
        const decoded = decodeRecord(String(r.body));
        if (!decoded) {
          unreadable++;
          continue;
        }
        rows.push({ timeMs, traces: decoded });
        for (const t of decoded) traces.add(t.traceId);
        if (traces.size >= this.opts.maxTraces) break scan;
      }
      if (page.length < PAGE) break;
    }
    const shift = newest === undefined ? 0 : Math.max(0, nowMs - newest);
    for (let i = rows.length - 1; i >= 0; i--) {
      const r = rows[i]!;
      for (const t of r.traces) ledger.remember(t.traceId, r.timeMs + shift, t.spans, t.calls);
    }
    return { records: rows.length, traces: traces.size, unreadable };
  }

  /**
   * Drops records older than the TTL before the newest, and those past about twice max_traces traces
   * (counted from the average of the newest records). Every query walks the primary key from one
   * end, so a run costs what it deletes: run often, it blocks little.
   */
  async prune(): Promise<number> {
    const [newest] = await this.sql.all('SELECT id, time_ms FROM ledger_batches ORDER BY id DESC LIMIT 1');
    if (!newest) return 0;
    const [avg] = await this.sql.all(
      `SELECT AVG(traces) AS traces FROM (SELECT traces FROM ledger_batches ORDER BY id DESC LIMIT ${SAMPLE}) newest`,
    );
    const keep = Math.ceil((this.opts.maxTraces * KEEP_FACTOR) / Math.max(1, num(avg?.traces)));
    const byCount = num(newest.id) - keep + 1;
    const [fresh] = await this.sql.all('SELECT id FROM ledger_batches WHERE time_ms >= ? ORDER BY id LIMIT 1', [
      num(newest.time_ms) - this.opts.traceTtlMs,
    ]);
    const cut = Math.max(byCount, num(fresh?.id));
    return this.sql.run('DELETE FROM ledger_batches WHERE id < ?', [cut]);
  }
}
