/**
 * The shapes the dedupe memory hands out and takes back (ledger.ts): a call's object while something
 * works on it, a waiting call, a batch's take for the journal, a journal's trace, a call's packed state.
 */
import type { OutcomeName, SourceName } from '../model.js';
import { NONE } from './dedupe-tables.js';
import type { CallToCount } from './merge.js';

export interface CallEntry {
  name: string;
  /** Raw arguments of a new sighting (only a hash is remembered: pairOf). */
  argsRaw: string | undefined;
  hasId: boolean;
  executed: boolean;
  /** Known from a tool span alone; a later proposal of the same call is not counted again. */
  fromExecution: boolean;
  /** Set while a tool-span-only call waits out the grace period for its proposal. */
  pending?: PendingCall | undefined;
  /** Known from an agent span's summary of its calls (SpanFacts.summaryCalls), not from a tool span. */
  summary?: true | undefined;
  /** Set once the call is counted (after its batch committed): what its execution is counted with. */
  outcome?: OutcomeName | undefined;
  model?: string | undefined;
  /** @internal Its call slot in the tables (-1: not remembered) and the key hash that slot must still hold. */
  at?: number;
  atHi?: number;
  atLo?: number;
  /** @internal The hash of its name and arguments as remembered (pairOf). */
  pair?: number;
  /**
   * @internal The batch (LedgerTxn serial) that last reached it, and in which trace: where a change
   * it makes goes in its journal record. On the entry, not in a map per batch: a batch's merge runs
   * without a wait, so no other batch reaches entries meanwhile.
   */
  reachedBy?: number;
  reachedIn?: string | undefined;
}

/** A call entry with every field present from the start (one shape for all keeps V8's in-object layout). */
export function callEntry(
  name: string,
  argsRaw: string | undefined,
  hasId: boolean,
  executed: boolean,
  fromExecution: boolean,
  summary?: true,
): CallEntry {
  return {
    name,
    argsRaw,
    hasId,
    executed,
    fromExecution,
    pending: undefined,
    summary,
    outcome: undefined,
    model: undefined,
    at: NONE,
    atHi: 0,
    atLo: 0,
    pair: undefined,
    reachedBy: 0,
    reachedIn: undefined,
  };
}

/**
 * A call known only from its tool span, not yet counted: export batches arrive concurrently and
 * out of order, so the proposal (which carries the offered tools and is what gets classified) may
 * still be on its way. Counted from the tool span when `dueMs` passes without one.
 */
export interface PendingCall {
  source: SourceName;
  traceId: string;
  key: string;
  dueMs: number;
  call: CallToCount;
  /** The call's entry in the ledger (never persisted): its outcome is set when the call is counted. */
  entry?: CallEntry;
}

/** What one batch took in one trace: the spans it claimed (hash pairs) and the calls it added or changed. */
export interface TakenInTrace {
  traceId: string;
  /** The trace id's hash (dedupe-hash.ts TRACE), when the taker had it at hand. */
  hi?: number;
  lo?: number;
  /** [hi, lo, hi, lo, …] of the span keys. */
  spans: number[];
  calls: Set<CallEntry>;
  /** This batch overflowed the trace's call cap. */
  overflowed?: true;
}

/** A trace as a journal record gives it back (ledger-journal.ts): hashes and packed call states. */
export interface RememberedTrace {
  hi: number;
  lo: number;
  /** [hi, lo, …] */
  spans: number[];
  /** Some spans were recorded without their service: they mark any service's resend (old records). */
  anyServiceSpans?: boolean;
  /** [hi, lo, state, pair] each; state as packState, its model index into `models`; pair as pairOf. */
  calls: number[];
  models: readonly string[];
  overflowed: boolean;
}

// A call's state in 32 bits: flags, then 1 + its outcome's index (0: not counted yet), then its model label's index.
export const HAS_ID = 1;
export const EXECUTED = 2;
export const FROM_EXECUTION = 4;
export const SUMMARY = 8;
export const OUTCOME_SHIFT = 4;
export const OUTCOME_MASK = 7;
export const MODEL_SHIFT = 7;

export const flagsOf = (e: CallEntry): number =>
  (e.hasId ? HAS_ID : 0) |
  (e.executed ? EXECUTED : 0) |
  (e.fromExecution ? FROM_EXECUTION : 0) |
  (e.summary ? SUMMARY : 0);
