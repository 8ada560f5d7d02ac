import { isFailure } from '../model.js';
import { maxProbability, samplePosition } from './sampler.js';
// Bounds per stored field: a trajectory must stay small enough to send to a judge.
const MAX_TEXT = 16 * 1024;
const MAX_ARGS = 16 * 1024;
const MAX_SCHEMA = 8 * 1024;
const MAX_TOOLS = 64;
const clip = (s, n) => {
    const cut = s.length > n ? `${s.slice(0, n)}…[truncated ${s.length - n} chars]` : s;
    return cut.includes('\u0000') ? cut.replaceAll('\u0000', '\uFFFD') : cut; // PostgreSQL TEXT refuses NUL
};
export class TrajectorySink {
    deps;
    threshold;
    positions = new Map();
    counter = 0;
    constructor(deps) {
        this.deps = deps;
        this.threshold = maxProbability(deps.policy);
    }
    collect(input) {
        if (this.threshold <= 0)
            return [];
        const byTrace = new Map();
        for (const f of input.facts) {
            if (this.position(f.traceId) >= this.threshold)
                continue;
            const list = byTrace.get(f.traceId);
            if (list)
                list.push(f);
            else
                byTrace.set(f.traceId, [f]);
        }
        if (byTrace.size === 0)
            return [];
        const outcomes = new Map();
        for (const c of input.calls)
            outcomes.set(callKey(c.spanId, c.callId, c.name), c);
        const seenMs = this.deps.now();
        const writes = [];
        for (const [traceId, facts] of byTrace) {
            const first = facts.reduce((a, b) => (b.startTimeMs < a.startTimeMs ? b : a));
            const hasFailure = input.calls.some((c) => c.traceId === traceId && isFailure(c.outcome.outcome));
            const steps = facts.flatMap((f) => {
                const raw = toStep(f, outcomes);
                const step = raw && redactStep(raw, this.deps.redactor);
                if (step?.omitted)
                    this.deps.onRedactionFailure?.();
                if (step)
                    step.seq = seenMs * 1000 + (this.counter++ % 1000);
                // Columns hold whole ms (BIGINT); the payload keeps the exact, sub-ms times that order the steps.
                return step
                    ? [
                        {
                            spanId: f.spanId,
                            startMs: Math.floor(f.startTimeMs),
                            endMs: Math.ceil(f.endTimeMs),
                            kind: step.kind,
                            payload: JSON.stringify(step),
                        },
                    ]
                    : [];
            });
            writes.push({
                traceId,
                service: first.service,
                firstMs: Math.floor(first.startTimeMs),
                endMs: Math.ceil(Math.max(...facts.map((f) => f.endTimeMs))),
                seenMs,
                hasFailure,
                position: this.position(traceId),
                steps,
                ...(input.writer?.globs ? { writer: input.writer.globs } : {}),
            });
        }
        return [this.deps.store.trajectories.ingestExtension(writes)];
    }
    /** Memoised for the traces of recent batches (a trace's spans come in several). */
    position(traceId) {
        let u = this.positions.get(traceId);
        if (u === undefined) {
            u = samplePosition(this.deps.project, traceId);
            if (this.positions.size >= 10_000)
                this.positions.clear();
            this.positions.set(traceId, u);
        }
        return u;
    }
}
const callKey = (spanId, callId, name) => `${spanId}\u0000${callId ?? `name:${name}`}`;
/** One span's facts as a stored step; agent/other spans only widen the trajectory's time range. */
export function toStep(f, outcomes) {
    if (f.execution) {
        const e = f.execution;
        const counted = outcomes.get(callKey(f.spanId, e.callId, e.name));
        const status = e.status === 'ok' ? 'ok' : 'error';
        const s = {
            kind: 'tool',
            spanId: f.spanId,
            startMs: f.startTimeMs,
            endMs: f.endTimeMs,
            name: e.name,
            status,
        };
        if (e.callId)
            s.callId = e.callId;
        if (e.args.kind !== 'none')
            s.arguments = clip(e.args.raw, MAX_ARGS);
        // The step keeps ok/error; how it failed (client_error, server_error) goes with the error's text.
        const how = e.status === 'client_error' || e.status === 'server_error' ? e.status : undefined;
        const what = e.errorType ?? how;
        if (what)
            s.errorType = clip(how && e.errorType ? `${how}: ${e.errorType}` : what, 1000);
        if (e.result !== undefined)
            s.result = clip(e.result, MAX_TEXT);
        if (counted)
            s.outcome = counted.outcome.outcome;
        return s;
    }
    if (f.role !== 'model')
        return undefined;
    const s = {
        kind: 'model',
        spanId: f.spanId,
        startMs: f.startTimeMs,
        endMs: f.endTimeMs,
        calls: f.proposals.map((p) => toCall(f.spanId, p, outcomes)),
    };
    if (f.model)
        s.model = f.model;
    if (f.userMessage)
        s.userMessage = clip(f.userMessage, MAX_TEXT);
    if (f.outputText)
        s.outputText = clip(f.outputText, MAX_TEXT);
    if (f.error)
        s.error = clip(f.error, 1000);
    if (f.inputTokens !== undefined)
        s.inputTokens = f.inputTokens;
    if (f.outputTokens !== undefined)
        s.outputTokens = f.outputTokens;
    if (f.offered)
        s.offered = f.offered.slice(0, MAX_TOOLS).map(toolDef);
    return s;
}
function toCall(spanId, p, outcomes) {
    const c = { name: clip(p.name, 500) };
    if (p.callId)
        c.callId = p.callId;
    if (p.args.kind !== 'none')
        c.arguments = clip(p.args.raw, MAX_ARGS);
    const counted = outcomes.get(callKey(spanId, p.callId, p.name));
    if (counted)
        c.outcome = counted.outcome.outcome;
    return c;
}
function toolDef(t) {
    const d = { name: clip(t.name, 500) };
    if (t.description)
        d.description = clip(t.description, 2000);
    if (t.parameters !== undefined) {
        const text = JSON.stringify(t.parameters);
        d.parameters = text.length <= MAX_SCHEMA ? t.parameters : { note: `schema omitted: ${text.length} chars` };
    }
    return d;
}
/**
 * A step as stored: every free-text field through the store's redactor (arguments as JSON, so they
 * stay JSON). A field the redactor cannot handle is left out and the step says which and why
 * (`omitted`, `argumentsOmitted` on a call). Names, tokens, times and offered schemas are kept as they are.
 */
export function redactStep(step, r) {
    if (r.level === 'none')
        return step;
    const out = { ...step };
    const reasons = [];
    const mask = (field, value, how) => {
        if (value === undefined)
            return;
        const m = how === 'json' ? r.json(value) : r.text(value);
        if (m.ok)
            out[field] = m.value;
        else {
            delete out[field];
            reasons.push(`${field}: ${m.reason}`);
        }
    };
    if (step.kind === 'model') {
        mask('userMessage', step.userMessage, 'text');
        mask('outputText', step.outputText, 'text');
        mask('error', step.error, 'text');
        out.calls = step.calls.map((c) => {
            if (c.arguments === undefined)
                return c;
            const m = r.json(c.arguments);
            if (m.ok)
                return { ...c, arguments: m.value };
            reasons.push(`calls[${c.name}].arguments: ${m.reason}`);
            const { arguments: _dropped, ...rest } = c;
            return { ...rest, argumentsOmitted: m.reason };
        });
    }
    else {
        mask('arguments', step.arguments, 'json');
        mask('result', step.result, 'json');
        mask('errorType', step.errorType, 'text');
    }
    if (reasons.length)
        out.omitted = reasons.join('; ');
    return out;
}
//# sourceMappingURL=trajectory.js.map