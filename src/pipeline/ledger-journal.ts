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
 * A record holds what the memory keeps and no more — its hashes (dedupe-hash.ts): version 3 is
 * `[3, [model…], "<base64>"]`, the base64 of little-endian 32-bit words, per trace: the trace id's
 * hash (2 words), the number of spans, of calls, 1 if the batch overflowed the trace's call cap, then
 * each span's hash (2 words) and each call's key hash (2 words), state, and hash of name and arguments (pairOf).
 * A state is the call's flags (1 it has an id, 2 executed, 4 known from its tool span alone, 8 from a
 * summary), in bits 4–6 the outcome it was counted with (1 + its index in OUTCOMES, 0 not counted yet)
 * and from bit 7 on the index of its model label in the record's model list. The outcome and model
 * let an execution whose call an earlier process counted be counted with them at once (executions.ts).
 * Records of versions 1 and 2 (JSON with the ids and keys as text) are still read: their text is hashed.
 */
import { OUTCOMES, type OutcomeName } from '../model.js';
import type { LedgerRecord, Sql } from '../store/store.js';
import { num } from '../store/rows.js';
import { CALL, h64, hashKey, pairOf, SPAN, TRACE } from './dedupe-hash.js';
import {
  ANY_SERVICE,
  type CallEntry,
  flagsOf,
  type Ledger,
  MODEL_SHIFT,
  OUTCOME_MASK,
  OUTCOME_SHIFT,
  type RememberedTrace,
  type TakenInTrace,
} from './ledger.js';

const VERSION = 3;

/** A version 1–2 record's marker of an overflowed trace, in place of a call key. */
const OVERFLOW_KEY = '!overflow';

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
  const list = Array.isArray(taken) ? (taken as readonly TakenInTrace[]) : [...taken];
  if (list.length === 0) return undefined;
  let n = 0;
  for (const t of list) n += 5 + t.spans.length + 4 * t.calls.size;
  // The words straight into the record's bytes (little-endian, as read back: decodeWords), in a
  // scratch array kept between records (only the base64 text of it leaves).
  if (scratch.length < n) scratch = new Int32Array(Math.max(n, scratch.length * 2));
  const words = scratch;
  let w = 0;
  for (const t of list) {
    // The trace id's hash as the ledger took it (TakenInTrace.hi/lo), else hashed again.
    if (t.hi !== undefined && t.lo !== undefined) {
      words[w++] = t.hi;
      words[w++] = t.lo;
    } else {
      hashKey(TRACE, t.traceId);
      words[w++] = h64[0]!;
      words[w++] = h64[1]!;
    }
    words[w++] = t.spans.length / 2;
    words[w++] = t.calls.size;
    words[w++] = t.overflowed ? 1 : 0;
    words.set(t.spans, w);
    w += t.spans.length;
    for (const e of t.calls) {
      let state = flagsOf(e);
      const as = counted?.(e) ?? (e.outcome !== undefined ? ([e.outcome, e.model ?? ''] as const) : undefined);
      if (as) {
        let m = models.indexOf(as[1]);
        if (m < 0) m = models.push(as[1]) - 1;
        state |= ((OUTCOMES.indexOf(as[0]) + 1) << OUTCOME_SHIFT) | (m << MODEL_SHIFT);
      }
      words[w++] = e.atHi ?? 0;
      words[w++] = e.atLo ?? 0;
      words[w++] = state;
      words[w++] = e.pair ?? pairOf(e.name, e.argsRaw);
    }
  }
  return { timeMs, traces: list.length, body: JSON.stringify([VERSION, models, base64Of(words, n)]) };
}

let scratch = new Int32Array(1024);

/** The first n words' bytes, little-endian whatever the machine's order, in base64. */
function base64Of(words: Int32Array, n: number): string {
  if (LITTLE_ENDIAN) return Buffer.from(words.buffer, words.byteOffset, n * 4).toString('base64');
  const buf = Buffer.allocUnsafe(n * 4);
  for (let i = 0; i < n; i++) buf.writeInt32LE(words[i]!, i * 4);
  return buf.toString('base64');
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const isStr = (v: unknown): v is string => typeof v === 'string';

/** A record's traces; undefined when this version cannot read it (it is skipped, never guessed at). */
export function decodeRecord(body: string): RememberedTrace[] | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!Array.isArray(doc)) return undefined;
  if (doc[0] === VERSION) return doc.length === 3 && isStr(doc[2]) ? decodeWords(doc[1], doc[2]) : undefined;
  if (doc[0] === 1 || doc[0] === 2) return decodeText(doc);
  return undefined;
}

function validState(state: number, models: readonly string[]): boolean {
  const outcome = (state >>> OUTCOME_SHIFT) & OUTCOME_MASK;
  return outcome === 0 || (outcome <= OUTCOMES.length && state >>> MODEL_SHIFT < models.length);
}

function decodeWords(models: unknown, b64: string): RememberedTrace[] | undefined {
  if (!Array.isArray(models) || !models.every(isStr)) return undefined;
  const buf = Buffer.from(b64, 'base64');
  if (buf.length % 4 !== 0) return undefined;
  const n = buf.length / 4;
  const w = (i: number) => buf.readInt32LE(i * 4);
  const out: RememberedTrace[] = [];
  for (let i = 0; i < n; ) {
    if (i + 5 > n) return undefined;
    const spans = w(i + 2);
    const calls = w(i + 3);
    const overflow = w(i + 4);
    if (spans < 0 || calls < 0 || (overflow !== 0 && overflow !== 1)) return undefined;
    const end = i + 5 + spans * 2 + calls * 4;
    if (end > n) return undefined;
    const t: RememberedTrace = {
      hi: w(i),
      lo: w(i + 1),
      spans: [],
      calls: [],
      models,
      overflowed: overflow === 1,
    };
    for (let j = i + 5; j < i + 5 + spans * 2; j++) t.spans.push(w(j));
    for (let j = i + 5 + spans * 2; j < end; j++) t.calls.push(w(j));
    for (let j = 2; j < t.calls.length; j += 4) if (!validState(t.calls[j]!, models)) return undefined;
    out.push(t);
    i = end;
  }
  return out;
}

/** Versions 1 and 2: `[2, [model…], [traceId, [spanId\0service…], [key, name, flags, …]], …]` (1: no models). */
function decodeText(doc: unknown[]): RememberedTrace[] | undefined {
  const v2 = doc[0] === 2;
  const models: unknown = v2 ? doc[1] : [];
  if (!Array.isArray(models) || !models.every(isStr)) return undefined;
  const out: RememberedTrace[] = [];
  for (let i = v2 ? 2 : 1; i < doc.length; i++) {
    const t: unknown = doc[i];
    if (!Array.isArray(t) || !isStr(t[0]) || !Array.isArray(t[1]) || !Array.isArray(t[2]) || !t[1].every(isStr))
      return undefined;
    const flat = t[2] as unknown[];
    if (flat.length % 3 !== 0) return undefined;
    hashKey(TRACE, t[0]);
    const r: RememberedTrace = { hi: h64[0]!, lo: h64[1]!, spans: [], calls: [], models, overflowed: false };
    for (const s of t[1] as string[]) {
      const cut = s.indexOf('\u0000');
      if (cut < 0) r.anyServiceSpans = true;
      hashKey(SPAN, cut < 0 ? s : s.slice(0, cut), cut < 0 ? ANY_SERVICE : s.slice(cut + 1));
      r.spans.push(h64[0]!, h64[1]!);
    }
    for (let k = 0; k < flat.length; k += 3) {
      const [key, name, flags] = [flat[k], flat[k + 1], flat[k + 2]];
      if (!isStr(key) || !isStr(name) || !Number.isSafeInteger(flags) || (flags as number) < 0) return undefined;
      const f = flags as number;
      const model = Math.floor(f / 2 ** MODEL_SHIFT);
      const outcome = (f >> OUTCOME_SHIFT) & OUTCOME_MASK;
      if (outcome > 0 && (OUTCOMES[outcome - 1] === undefined || model >= models.length)) return undefined;
      if (key === OVERFLOW_KEY) {
        r.overflowed = true;
        continue;
      }
      hashKey(CALL, key);
      r.calls.push(h64[0]!, h64[1]!, outcome > 0 ? f : f & 15, pairOf(name, undefined));
    }
    out.push(r);
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
    const rows: { timeMs: number; traces: RememberedTrace[] }[] = [];
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
        for (const t of decoded) traces.add(`${t.hi}:${t.lo}`);
        if (traces.size >= this.opts.maxTraces) break scan;
      }
      if (page.length < PAGE) break;
    }
    const shift = newest === undefined ? 0 : Math.max(0, nowMs - newest);
    for (let i = rows.length - 1; i >= 0; i--) {
      const r = rows[i]!;
      for (const t of r.traces) ledger.remember(t, r.timeMs + shift);
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
