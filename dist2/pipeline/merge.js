import { callEntry } from './ledger.js';
const rawOf = (a) => (a.kind === 'none' ? undefined : a.raw);
const NO_ORIGIN = Object.freeze({});
/** The scope fields of a call counted from `f`, when its facts were read from a span. */
const originOf = (f) => f.scope === undefined ? NO_ORIGIN : { scope: f.scope, scopeVersion: f.scopeVersion ?? '' };
/** Proposals before executions, so within a batch the richer sighting is the one classified. */
function order(a, b) {
    return (a.execution ? 1 : 0) - (b.execution ? 1 : 0) || a.startTimeMs - b.startTimeMs;
}
/**
 * The batches not yet settled (store write neither committed nor refused) that took a span or an
 * id-keyed call of these facts. A batch must wait for them before merging: otherwise a resend of an
 * uncommitted batch would be taken for a duplicate, acknowledged, and lost if the original then fails.
 */
export function unsettledOwners(facts, ledger) {
    let owners;
    const note = (t) => {
        if (t)
            (owners ??= new Set()).add(t);
    };
    for (const f of facts) {
        if (f.proposals.length === 0 && !f.execution)
            continue;
        note(ledger.heldBy(f.traceId, 'span', f.spanId));
        for (const p of f.proposals)
            if (p.callId)
                note(ledger.heldBy(f.traceId, 'call', `id:${p.callId}`));
        if (f.execution?.callId)
            note(ledger.heldBy(f.traceId, 'call', `id:${f.execution.callId}`));
    }
    return owners ? [...owners].map((t) => t.settled) : [];
}
export function mergeBatch(facts, txn, ctx) {
    const out = { calls: [], entries: [], deferred: [], cancelled: [], executions: [], duplicateSpans: 0 };
    // A model span with no calls of its own may be the one GenAI log records came before (log-join.ts).
    for (const f of facts) {
        if (f.role === 'model' && f.proposals.length === 0 && f.claimId === undefined)
            releaseForSpan(f, txn, out);
    }
    const relevant = facts.filter((f) => f.proposals.length > 0 || f.execution || f.summaryCalls);
    relevant.sort(order);
    for (const f of relevant) {
        if (!txn.claimSpan(f.traceId, f.claimId ?? f.spanId, f.service)) {
            out.duplicateSpans++;
            continue;
        }
        for (let i = 0; i < f.proposals.length; i++)
            takeProposal(f, f.proposals[i], i, txn, out, ctx);
        if (f.execution)
            takeExecution(f, f.execution, txn, out, ctx);
        const summary = f.summaryCalls;
        if (summary)
            for (let i = 0; i < summary.length; i++)
                takeSummary(f, summary[i], i, txn, out, ctx);
    }
    return out;
}
/**
 * A call an agent-level span reports as a summary (SpanFacts.summaryCalls): held like a
 * tool-span-only call, so a model or tool span of the same call that arrives within the grace
 * period takes it over, and it is counted from the summary only when none does.
 */
function takeSummary(f, s, index, txn, out, ctx) {
    const key = s.callId ? `id:${s.callId}` : `sum:${f.spanId}:${index}`;
    const argsRaw = rawOf(s.args);
    const known = s.callId ? txn.get(f.traceId, key) : txn.findUnpaired(f.traceId, s.name, argsRaw, () => true);
    // In a trace past its call cap the summarised call may be one counted and not remembered (ledger.ts).
    if (known || txn.overflowed(f.traceId))
        return;
    const hasId = Boolean(s.callId);
    const entry = callEntry(s.name, argsRaw, hasId, false, true, true);
    if (!txn.add(f.traceId, key, entry))
        return;
    const pending = {
        source: ctx.source,
        traceId: f.traceId,
        key,
        dueMs: ctx.dueMs,
        call: callOf(f, s, f.endTimeMs || f.startTimeMs, false),
    };
    txn.defer(entry, pending);
    out.deferred.push(pending);
}
function takeProposal(f, p, index, txn, out, ctx) {
    const key = p.callId ? `id:${p.callId}` : `pos:${f.spanId}:${index}`;
    const argsRaw = rawOf(p.args);
    // Seen before: by id, or as an id-less tool span (OpenInference TOOL) with this name and arguments.
    // A proposal without an id pairs with a tool span that has one (Google ADK assigns ids after the model call).
    // Never another proposal waiting for its schema (two parallel id-less calls of one tool).
    const fromToolSpan = p.callId
        ? (e) => e.fromExecution && !e.hasId && !awaitsSchema(e)
        : (e) => e.fromExecution && !awaitsSchema(e);
    let entry = txn.get(f.traceId, key) ?? txn.findUnpaired(f.traceId, p.name, argsRaw, fromToolSpan);
    let call = callOf(f, p, f.endTimeMs || f.startTimeMs, false);
    const lacks = lacksSchema(f, p, ctx);
    if (entry) {
        const held = entry.pending;
        if (!held)
            return; // already counted
        if (lacks && !held.call.fromExecution && !entry.executed) {
            // An agent span's summary came first: the proposal takes its place and waits for the tool span too.
            const replaced = txn.replacePending(entry, { ...call, heldFor: 'schema' });
            if (replaced)
                out.deferred.push(replaced);
            return;
        }
        out.cancelled.push({ traceId: held.traceId, key: held.key });
        txn.claimOrphan(entry);
        // The tool span came first (alone, or after a summary): its schema checks the proposal.
        if (lacks && (held.call.fromExecution || held.call.schemaFrom === 'tool_span'))
            call = withSchemaOf(call, held.call.offered);
    }
    else if (lacks || f.awaitsSpan) {
        entry = callEntry(p.name, argsRaw, Boolean(p.callId), false, true, true);
        txn.add(f.traceId, key, entry);
        const pending = { source: ctx.source, traceId: f.traceId, key, dueMs: ctx.dueMs, call };
        pending.call = { ...call, heldFor: f.awaitsSpan ? 'span' : 'schema' };
        txn.defer(entry, pending);
        out.deferred.push(pending);
        return;
    }
    else {
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
function lacksSchema(f, p, ctx) {
    if (!f.schemasOnToolSpans || !ctx.registryKnows || ctx.registryKnows(f.service))
        return false;
    if (p.name === '' || p.args.kind === 'none')
        return false;
    const offered = f.offered;
    if (offered && offered.length > 0) {
        const def = offered.find((d) => d.name === p.name);
        if (def === undefined || def.parameters !== undefined)
            return false; // UnknownName, or checkable now
    }
    if (p.args.kind === 'string') {
        try {
            const v = JSON.parse(p.args.raw);
            if (v === null || typeof v !== 'object' || Array.isArray(v))
                return false;
        }
        catch {
            return false;
        }
    }
    return true;
}
/** The calls of log records that waited for this span: counted now, with its model and offered tools. */
function releaseForSpan(f, txn, out) {
    for (const entry of txn.heldForSpan(f.traceId, f.spanId)) {
        const held = entry.pending;
        out.cancelled.push({ traceId: held.traceId, key: held.key });
        txn.claimOrphan(entry);
        const { heldFor: _, ...call } = held.call;
        if (f.model !== undefined)
            call.model = f.model;
        if (call.offered === undefined && f.offered !== undefined)
            call.offered = f.offered;
        out.entries.push(entry);
        out.calls.push(call);
    }
}
/** A proposal's entry held (summary-like, see takeProposal) until its tool span brings a schema. */
const awaitsSchema = (e) => e.pending?.call.heldFor === 'schema';
/** The call with its tool span's definition of the same name (with a schema) in place of its request's. */
function withSchemaOf(call, toolSpanDefs) {
    const def = toolSpanDefs?.find((d) => d.name === call.name && d.parameters !== undefined);
    if (!def)
        return call;
    const offered = call.offered?.length ? call.offered.map((d) => (d.name === def.name ? def : d)) : [def];
    return { ...call, offered, schemaFrom: 'tool_span' };
}
/** A call to count as its span reports it: a proposal (fromExecution false), a summary, or a tool span. */
function callOf(f, c, timeMs, fromExecution) {
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
function takeExecution(f, e, txn, out, ctx) {
    const timeMs = f.endTimeMs || f.startTimeMs;
    const exec = { traceId: f.traceId, spanId: f.spanId, service: f.service, execution: e, timeMs };
    out.executions.push(exec);
    const argsRaw = rawOf(e.args);
    const key = e.callId ? `id:${e.callId}` : `exec:${f.spanId}`;
    // A call is seen once more by its id; an id-less one by name and arguments (never by an empty name).
    // A tool span with an id also pairs with a proposal that had none (Google ADK).
    const unpaired = (want) => e.name === '' ? undefined : txn.findUnpaired(f.traceId, e.name, argsRaw, want);
    const known = e.callId
        ? (txn.get(f.traceId, key) ?? unpaired((c) => !c.executed && !c.hasId && (!c.fromExecution || awaitsSchema(c))))
        : unpaired((c) => !c.executed && (!c.fromExecution || c.summary === true));
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
        }
        else if (held && !held.call.fromExecution) {
            // A summary waits: it keeps this span's schema, for itself or the proposal that takes it over.
            const withDef = withSchemaOf(held.call, f.offered);
            const replaced = withDef === held.call ? undefined : txn.replacePending(known, withDef);
            if (replaced)
                out.deferred.push(replaced);
        }
        return;
    }
    // Past the trace's call cap an unknown call may be one counted and not remembered: recorded as an
    // execution, never counted as a call of its own (ledger.ts).
    if (txn.overflowed(f.traceId))
        return;
    const entry = callEntry(e.name, argsRaw, Boolean(e.callId), true, true);
    if (!txn.add(f.traceId, key, entry))
        return;
    exec.entry = entry;
    const pending = {
        source: ctx.source,
        traceId: f.traceId,
        key,
        dueMs: ctx.dueMs,
        call: callOf(f, e, f.startTimeMs, true),
    };
    txn.defer(entry, pending);
    out.deferred.push(pending);
}
//# sourceMappingURL=merge.js.map