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
  /** The label budget of its sender (metrics/label-cap.ts), kept while it waits: it is labelled when counted. */
  budget?: string;
  /**
   * A proposal held for the schema its tool span may carry (lacksSchema), or read from log records
   * and held for the span they belong to (log-join.ts); never set on a call being counted.
   */
  heldFor?: 'schema' | 'span';
  /** Where the schema it is checked against came from, when not from its own request: its tool span. */
  schemaFrom?: 'tool_span';
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

/** Proposals before executions, so within a batch the richer sighting is the one classified. */
function order(a: SpanFacts, b: SpanFacts): number {
  return (a.execution ? 1 : 0) - (b.execution ? 1 : 0) || a.startTimeMs - b.startTimeMs;
}

export interface MergeContext {
  source: SourceName;
  /** When a tool-span-only call seen now is counted if no proposal arrives. */
  dueMs: number;
  /**
   * Whether the tool registry has definitions for this service. When it has none, a proposal whose
   * request carried no schema for it waits (like a tool-span-only call) for its tool span's schema.
   */
  registryKnows?: (service: string) => boolean;
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
    for (const p of f.proposals) if (p.callId) note(ledger.heldBy(f.traceId, 'call', p.callId, 'id:'));
    if (f.execution?.callId) note(ledger.heldBy(f.traceId, 'call', f.execution.callId, 'id:'));
  }
  return owners ? [...owners].map((t) => t.settled) : [];
}

export function mergeBatch(facts: readonly SpanFacts[], txn: LedgerTxn, ctx: MergeContext): Merged {
  const out: Merged = { calls: [], entries: [], deferred: [], cancelled: [], executions: [], duplicateSpans: 0 };
  // A model span with no calls of its own may be the one GenAI log records came before (log-join.ts).
  for (const f of facts) {
    if (f.role === 'model' && f.proposals.length === 0 && f.claimId === undefined) releaseForSpan(f, txn, out);
  }
  const relevant = facts.filter((f) => f.proposals.length > 0 || f.execution || f.summaryCalls);
  relevant.sort(order);
  for (const f of relevant) {
    if (!txn.claimSpan(f.traceId, f.claimId ?? f.spanId, f.service)) {
      out.duplicateSpans++;
      continue;
    }
    for (let i = 0; i < f.proposals.length; i++) takeProposal(f, f.proposals[i]!, i, txn, out, ctx);
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
  const known = s.callId ? txn.get(f.traceId, key) : txn.findUnpaired(f.traceId, s.name, argsRaw, anyCall);
  // In a trace past its call cap the summarised call may be one counted and not remembered (ledger.ts).
  if (known || txn.overflowed(f.traceId)) return;
  const hasId = Boolean(s.callId);
  const entry = callEntry(s.name, argsRaw, hasId, false, true, true);
  if (!txn.add(f.traceId, key, entry)) return;
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

function takeProposal(
  f: SpanFacts,
  p: CallSighting,
  index: number,
  txn: LedgerTxn,
  out: Merged,
  ctx: MergeContext,
): void {
  const key = p.callId ? `id:${p.callId}` : `pos:${f.spanId}:${index}`;
  const argsRaw = rawOf(p.args);
  // Seen before: by id, or as an id-less tool span (OpenInference TOOL) with this name and arguments.
  // A proposal without an id pairs with a tool span that has one (Google ADK assigns ids after the model call).
  // Never another proposal waiting for its schema (two parallel id-less calls of one tool).
  const fromToolSpan = p.callId ? toolSpanWithoutId : toolSpanNotAwaiting;
  let entry = txn.get(f.traceId, key) ?? txn.findUnpaired(f.traceId, p.name, argsRaw, fromToolSpan);
  let call = callOf(f, p, f.endTimeMs || f.startTimeMs, false);
  const lacks = lacksSchema(f, p, ctx);
  if (entry) {
    const held = entry.pending;
    if (!held) return; // already counted
    if (lacks && !held.call.fromExecution && !entry.executed) {
      // An agent span's summary came first: the proposal takes its place and waits for the tool span too.
      const replaced = txn.replacePending(entry, { ...call, heldFor: 'schema' });
      if (replaced) out.deferred.push(replaced);
      return;
    }
    out.cancelled.push({ traceId: held.traceId, key: held.key });
    txn.claimOrphan(entry);
    // The tool span came first (alone, or after a summary): its schema checks the proposal.
    if (lacks && (held.call.fromExecution || held.call.schemaFrom === 'tool_span'))
      call = withSchemaOf(call, held.call.offered);
  } else if (lacks || f.awaitsSpan) {
    entry = callEntry(p.name, argsRaw, Boolean(p.callId), false, true, true);
    txn.add(f.traceId, key, entry);
    const pending: PendingCall = { source: ctx.source, traceId: f.traceId, key, dueMs: ctx.dueMs, call };
    pending.call = { ...call, heldFor: f.awaitsSpan ? 'span' : 'schema' };
    txn.defer(entry, pending);
    out.deferred.push(pending);
    return;
  } else {
    entry = callEntry(p.name, argsRaw, Boolean(p.callId), false, false);
    txn.add(f.traceId, key, entry);
  }
  out.entries.push(entry);
  out.calls.push(call);
}

/**
 * A proposal that only its tool span's schema could check: from an instrumentation that puts schemas
 * there (SpanFacts.schemasOnToolSpans: OpenAI Agents via OpenInference, Strands), named, with
 * arguments that parse (an InvalidJson call needs none), its request offering no definition with
 * parameters for it, and no registry for the service. The tool span ends after the model span.
 */
function lacksSchema(f: SpanFacts, p: CallSighting, ctx: MergeContext): boolean {
  if (!f.schemasOnToolSpans || !ctx.registryKnows || ctx.registryKnows(f.service)) return false;
  if (p.name === '' || p.args.kind === 'none') return false;
  const offered = f.offered;
  if (offered && offered.length > 0) {
    const def = offered.find((d) => d.name === p.name);
    if (def === undefined || def.parameters !== undefined) return false; // UnknownName, or checkable now
  }
  if (p.args.kind === 'string') {
    try {
      const v: unknown = JSON.parse(p.args.raw);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The calls of log records that waited for this span: counted now, with its model and offered tools. */
function releaseForSpan(f: SpanFacts, txn: LedgerTxn, out: Merged): void {
  for (const entry of txn.heldForSpan(f.traceId, f.spanId)) {
    const held = entry.pending!;
    out.cancelled.push({ traceId: held.traceId, key: held.key });
    txn.claimOrphan(entry);
    const { heldFor: _, ...call } = held.call;
    if (f.model !== undefined) call.model = f.model;
    if (call.offered === undefined && f.offered !== undefined) call.offered = f.offered;
    out.entries.push(entry);
    out.calls.push(call);
  }
}

/** A proposal's entry held (summary-like, see takeProposal) until its tool span brings a schema. */
const awaitsSchema = (e: CallEntry): boolean => e.pending?.call.heldFor === 'schema';

// What an id-less sighting may pair with (LedgerTxn.findUnpaired), as functions made once, not per call.
/** A proposal with an id: an id-less tool span's call (OpenInference TOOL), not one waiting for its schema. */
const toolSpanWithoutId = (e: CallEntry): boolean => e.fromExecution && !e.hasId && !awaitsSchema(e);
/** A proposal without one: any tool span's call (Google ADK assigns ids after the model call). */
const toolSpanNotAwaiting = (e: CallEntry): boolean => e.fromExecution && !awaitsSchema(e);
/** A tool span with an id: an id-less proposal's call not yet executed, or one waiting for its schema. */
const proposalWithoutId = (c: CallEntry): boolean => !c.executed && !c.hasId && (!c.fromExecution || awaitsSchema(c));
/** A tool span without one: a call not yet executed, proposed or summarised. */
const proposalOrSummary = (c: CallEntry): boolean => !c.executed && (!c.fromExecution || c.summary === true);
/** An agent span's summary pairs with any call of its name. */
const anyCall = (): boolean => true;

/** The call with its tool span's definition of the same name (with a schema) in place of its request's. */
function withSchemaOf(call: CallToCount, toolSpanDefs: readonly ToolDef[] | undefined): CallToCount {
  const def = toolSpanDefs?.find((d) => d.name === call.name && d.parameters !== undefined);
  if (!def) return call;
  const offered = call.offered?.length ? call.offered.map((d) => (d.name === def.name ? def : d)) : [def];
  return { ...call, offered, schemaFrom: 'tool_span' };
}

/**
 * A call to count as its span reports it: a proposal (fromExecution false), a summary, or a tool span.
 * Built field by field in one fixed order (what a pending call's stored payload shows), without the
 * spread of a fresh object per optional field: one object per call.
 */
function callOf(f: SpanFacts, c: CallSighting | ToolExecution, timeMs: number, fromExecution: boolean): CallToCount {
  const call: CallToCount = { traceId: f.traceId, spanId: f.spanId } as CallToCount;
  if (c.callId) call.callId = c.callId;
  call.service = f.service;
  call.model = f.model ?? '';
  call.name = c.name;
  call.args = c.args;
  if (f.offered) call.offered = f.offered;
  call.timeMs = timeMs;
  call.fromExecution = fromExecution;
  if (f.scope !== undefined) {
    call.scope = f.scope;
    call.scopeVersion = f.scopeVersion ?? '';
  }
  if (f.finishReasons) call.finishReasons = f.finishReasons;
  return call;
}

function takeExecution(f: SpanFacts, e: ToolExecution, txn: LedgerTxn, out: Merged, ctx: MergeContext): void {
  const timeMs = f.endTimeMs || f.startTimeMs;
  const exec: ExecutionToRecord = { traceId: f.traceId, spanId: f.spanId, service: f.service, execution: e, timeMs };
  out.executions.push(exec);
  const argsRaw = rawOf(e.args);
  const key = e.callId ? `id:${e.callId}` : `exec:${f.spanId}`;
  // A call is seen once more by its id; an id-less one by name and arguments (never by an empty name).
  // A tool span with an id also pairs with a proposal that had none (Google ADK).
  const byId = e.callId ? txn.get(f.traceId, key) : undefined;
  const known =
    byId ??
    (e.name === ''
      ? undefined
      : txn.findUnpaired(f.traceId, e.name, argsRaw, e.callId ? proposalWithoutId : proposalOrSummary));
  if (known) {
    txn.markExecuted(known);
    exec.entry = known;
    const held = known.pending;
    // A proposal waiting for a schema is counted now, with this span's if it carries one.
    if (held?.call.heldFor === 'schema') {
      out.cancelled.push({ traceId: held.traceId, key: held.key });
      txn.claimOrphan(known);
      const { heldFor: _, ...call } = held.call;
      out.entries.push(known);
      out.calls.push(withSchemaOf(call, f.offered));
    } else if (held && !held.call.fromExecution) {
      // A summary waits: it keeps this span's schema, for itself or the proposal that takes it over.
      const withDef = withSchemaOf(held.call, f.offered);
      const replaced = withDef === held.call ? undefined : txn.replacePending(known, withDef);
      if (replaced) out.deferred.push(replaced);
    }
    return;
  }
  // Past the trace's call cap an unknown call may be one counted and not remembered: recorded as an
  // execution, never counted as a call of its own (ledger.ts).
  if (txn.overflowed(f.traceId)) return;
  const entry = callEntry(e.name, argsRaw, Boolean(e.callId), true, true);
  if (!txn.add(f.traceId, key, entry)) return;
  exec.entry = entry;
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
