/**
 * Turns a batch of SpanFacts into the calls to count and the executions to record, consulting the
 * ledger so that a call seen as a proposal, a tool span and a replay is counted once — also when
 * its sightings arrive in different, concurrent, out-of-order export batches.
 */
import type { CallSighting, SourceName, SpanFacts, ToolArgs, ToolDef, ToolExecution } from '../model.js';
import { callEntry, type CallEntry, type Ledger, type LedgerTxn, type PendingCall } from './ledger.js';

export interface CallToCount {
  traceId: string;
  spanId: string;
  callId?: string;
  service: string;
  model: string;
  name: string;
  args: ToolArgs;
  offered?: readonly ToolDef[];
  timeMs: number;
  fromExecution: boolean;
  /** The instrumentation scope of the span the call is counted from (kept while it waits, for the coverage report). */
  scope?: string;
  scopeVersion?: string;
  /** The proposing span's finish reasons (an InvalidJson call's cause reads them). */
  finishReasons?: readonly string[];
}

export interface ExecutionToRecord {
  traceId: string;
  spanId: string;
  service: string;
  execution: ToolExecution;
  timeMs: number;
  /** The ledger entry of the call it executes (undefined past the per-trace cap). */
  entry?: CallEntry;
}

export interface Merged {
  /** Calls to classify and count now (proposals). */
  calls: CallToCount[];
  /** The ledger entry of each of `calls`, by index (its outcome is set once counted). */
  entries: CallEntry[];
  /** Tool-span-only calls held for their grace period (persisted with the batch). */
  deferred: PendingCall[];
  /** Held calls whose proposal arrived in this batch: counted from the proposal instead. */
  cancelled: { traceId: string; key: string }[];
  executions: ExecutionToRecord[];
  /** Tool-bearing spans skipped because they were already taken (resent batches). */
  duplicateSpans: number;
}

const rawOf = (a: ToolArgs): string | undefined => (a.kind === 'none' ? undefined : a.raw);

const NO_ORIGIN = Object.freeze({});
/** The scope fields of a call counted from `f`, when its facts were read from a span. */
const originOf = (f: SpanFacts): { scope?: string; scopeVersion?: string } =>
  f.scope === undefined ? NO_ORIGIN : { scope: f.scope, scopeVersion: f.scopeVersion ?? '' };

/** Proposals before executions, so within a batch the richer sighting is the one classified. */
function order(a: SpanFacts, b: SpanFacts): number {
  return (a.execution ? 1 : 0) - (b.execution ? 1 : 0) || a.startTimeMs - b.startTimeMs;
}

export interface MergeContext {
  source: SourceName;
  /** When a tool-span-only call seen now is counted if no proposal arrives. */
  dueMs: number;
}

/**
 * The batches not yet settled (store write neither committed nor refused) that took a span or an
 * id-keyed call of these facts. A batch must wait for them before merging: otherwise a resend of an
 * uncommitted batch would be taken for a duplicate, acknowledged, and lost if the original then fails.
 */
export function unsettledOwners(facts: readonly SpanFacts[], ledger: Ledger): Promise<void>[] {
  let owners: Set<LedgerTxn> | undefined;
  const note = (t: LedgerTxn | undefined) => {
    if (t) (owners ??= new Set()).add(t);
  };
  for (const f of facts) {
    if (f.proposals.length === 0 && !f.execution) continue;
    note(ledger.heldBy(f.traceId, 'span', f.spanId));
    for (const p of f.proposals) if (p.callId) note(ledger.heldBy(f.traceId, 'call', `id:${p.callId}`));
    if (f.execution?.callId) note(ledger.heldBy(f.traceId, 'call', `id:${f.execution.callId}`));
  }
  return owners ? [...owners].map((t) => t.settled) : [];
}

export function mergeBatch(facts: readonly SpanFacts[], txn: LedgerTxn, ctx: MergeContext): Merged {
  const out: Merged = { calls: [], entries: [], deferred: [], cancelled: [], executions: [], duplicateSpans: 0 };
  const relevant = facts.filter((f) => f.proposals.length > 0 || f.execution || f.summaryCalls);
  relevant.sort(order);
  for (const f of relevant) {
    if (!txn.claimSpan(f.traceId, f.spanId)) {
      out.duplicateSpans++;
      continue;
    }
    for (let i = 0; i < f.proposals.length; i++) takeProposal(f, f.proposals[i]!, i, txn, out);
    if (f.execution) takeExecution(f, f.execution, txn, out, ctx);
    const summary = f.summaryCalls;
    if (summary) for (let i = 0; i < summary.length; i++) takeSummary(f, summary[i]!, i, txn, out, ctx);
  }
  return out;
}

/**
 * A call an agent-level span reports as a summary (SpanFacts.summaryCalls): held like a
 * tool-span-only call, so a model or tool span of the same call that arrives within the grace
 * period takes it over, and it is counted from the summary only when none does.
 */
function takeSummary(
  f: SpanFacts,
  s: CallSighting,
  index: number,
  txn: LedgerTxn,
  out: Merged,
  ctx: MergeContext,
): void {
  const key = s.callId ? `id:${s.callId}` : `sum:${f.spanId}:${index}`;
  const argsRaw = rawOf(s.args);
  const known = s.callId ? txn.get(f.traceId, key) : txn.findUnpaired(f.traceId, s.name, argsRaw, () => true);
  if (known) return;
  const hasId = Boolean(s.callId);
  const entry = callEntry(s.name, argsRaw, hasId, false, true, true);
  txn.add(f.traceId, key, entry);
  const pending: PendingCall = {
    source: ctx.source,
    traceId: f.traceId,
    key,
    dueMs: ctx.dueMs,
    call: callOf(f, s, f.endTimeMs || f.startTimeMs, false),
  };
  txn.defer(entry, pending);
  out.deferred.push(pending);
}

function takeProposal(f: SpanFacts, p: CallSighting, index: number, txn: LedgerTxn, out: Merged): void {
  const key = p.callId ? `id:${p.callId}` : `pos:${f.spanId}:${index}`;
  const argsRaw = rawOf(p.args);
  // Seen before: by id, or as an id-less tool span (OpenInference TOOL) with this name and arguments.
  // A proposal without an id pairs with a tool span that has one (Google ADK assigns ids after the model call).
  const fromToolSpan = p.callId ? (e: CallEntry) => e.fromExecution && !e.hasId : (e: CallEntry) => e.fromExecution;
  let entry = txn.get(f.traceId, key) ?? txn.findUnpaired(f.traceId, p.name, argsRaw, fromToolSpan);
  if (entry) {
    if (!entry.pending) return; // already counted
    out.cancelled.push({ traceId: entry.pending.traceId, key: entry.pending.key });
    txn.claimOrphan(entry);
  } else {
    entry = callEntry(p.name, argsRaw, Boolean(p.callId), false, false);
    txn.add(f.traceId, key, entry);
  }
  out.entries.push(entry);
  out.calls.push(callOf(f, p, f.endTimeMs || f.startTimeMs, false));
}

/** A call to count as its span reports it: a proposal (fromExecution false), a summary, or a tool span. */
function callOf(f: SpanFacts, c: CallSighting | ToolExecution, timeMs: number, fromExecution: boolean): CallToCount {
  return {
    traceId: f.traceId,
    spanId: f.spanId,
    ...(c.callId ? { callId: c.callId } : {}),
    service: f.service,
    model: f.model ?? '',
    name: c.name,
    args: c.args,
    ...(f.offered ? { offered: f.offered } : {}),
    timeMs,
    fromExecution,
    ...originOf(f),
    ...(f.finishReasons ? { finishReasons: f.finishReasons } : {}),
  };
}

function takeExecution(f: SpanFacts, e: ToolExecution, txn: LedgerTxn, out: Merged, ctx: MergeContext): void {
  const timeMs = f.endTimeMs || f.startTimeMs;
  const exec: ExecutionToRecord = { traceId: f.traceId, spanId: f.spanId, service: f.service, execution: e, timeMs };
  out.executions.push(exec);
  const argsRaw = rawOf(e.args);
  const key = e.callId ? `id:${e.callId}` : `exec:${f.spanId}`;
  // A call is seen once more by its id; an id-less one by name and arguments (never by an empty name).
  // A tool span with an id also pairs with a proposal that had none (Google ADK).
  const unpaired = (want: (c: CallEntry) => boolean) =>
    e.name === '' ? undefined : txn.findUnpaired(f.traceId, e.name, argsRaw, want);
  const known = e.callId
    ? (txn.get(f.traceId, key) ?? unpaired((c) => !c.executed && !c.fromExecution && !c.hasId))
    : unpaired((c) => !c.executed && (!c.fromExecution || c.summary === true));
  if (known) {
    txn.markExecuted(known);
    exec.entry = known;
    return;
  }
  const entry = callEntry(e.name, argsRaw, Boolean(e.callId), true, true);
  exec.entry = entry;
  txn.add(f.traceId, key, entry);
  const pending: PendingCall = {
    source: ctx.source,
    traceId: f.traceId,
    key,
    dueMs: ctx.dueMs,
    call: callOf(f, e, f.startTimeMs, true),
  };
  txn.defer(entry, pending);
  out.deferred.push(pending);
}
