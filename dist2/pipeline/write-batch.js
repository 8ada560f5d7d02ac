import { countedTool, UNKNOWN_TOOL, UNNAMED_TOOL, } from '../model.js';
import { minuteOf } from '../store/store.js';
import { storableText } from '../store/storable-text.js';
const MAX_TEXT = 200;
const MAX_ARGS = 64 * 1024;
/** Redaction sees this much past the clip, so a secret cut by the clip was still seen whole. */
const REDACT_MARGIN = 8 * 1024;
/** Bounded and storable everywhere (storable-text.ts): NUL and lone surrogates become U+FFFD. */
const clip = (s, n = MAX_TEXT) => storableText(s.length > n ? s.slice(0, n) : s);
/** A trace, span or call id as failure records store it (and as rows keyed to them must). */
export const storedId = (id) => clip(id);
/**
 * The names a call is counted under: in the store clipped and storable, `_unknown` for a name the
 * model invented, `_unnamed` for a call or execution no span named; in /metrics the same, capped per
 * label (overflow → `_other`, so no input can explode cardinality). Derived once per call, so the
 * metric and the stored row agree wherever the cap left the name alone. `budget`: the sender's share
 * of the cap (label-cap.ts).
 */
export function callLabels(c, cap, budget) {
    const service = clip(c.service);
    const model = clip(c.model);
    const tool = countedName(countedTool(c.outcome.outcome, c.name));
    return {
        service,
        model,
        tool,
        metric: {
            service: cap.value('service', service, budget),
            model: cap.value('model', model, budget),
            tool: toolLabel(tool, cap, budget),
        },
    };
}
/** An execution's stored names; its labels are asked for under the sender's budget now, read when it is counted. */
export function executionLabels(e, cap, budget) {
    const service = clip(e.service);
    const tool = countedName(e.execution.name === '' ? UNNAMED_TOOL : e.execution.name);
    cap.value('service', service, budget);
    toolLabel(tool, cap, budget);
    return { service, tool };
}
/** A model name as stored (a trajectory's model): clipped and storable. */
export function storedName(name) {
    return clip(name);
}
/** The `scope` label of toolwatch_spans_unrecognized_total: the scope name, clipped and capped. */
export function scopeLabel(scope, cap, budget) {
    return cap.value('scope', clip(scope), budget);
}
/** `_unknown` and `_unnamed` are fixed values; any other name is clipped. */
function countedName(counted) {
    return counted === UNKNOWN_TOOL || counted === UNNAMED_TOOL ? counted : clip(counted);
}
/** `_unknown` and `_unnamed` are fixed values, never capped; any other (clipped) name is capped. */
function toolLabel(tool, cap, budget) {
    return tool === UNKNOWN_TOOL || tool === UNNAMED_TOOL ? tool : cap.value('tool', tool, budget);
}
/** An execution's or trajectory's metric label for a stored name (`_unknown`, `_unnamed` as they are). */
export function peekLabel(cap, label, name) {
    return label === 'tool' && (name === UNKNOWN_TOOL || name === UNNAMED_TOOL) ? name : cap.peek(label, name);
}
/** Records kept per (minute, service, tool); remembered for the current and previous minutes only. */
export class FailureCap {
    perMinute;
    kept = new Map();
    minute = 0;
    constructor(perMinute) {
        this.perMinute = perMinute;
    }
    used(key) {
        return this.kept.get(key) ?? 0;
    }
    commit(increments, nowMinute) {
        if (nowMinute !== this.minute) {
            this.minute = nowMinute;
            for (const k of this.kept.keys())
                if (Number(k.slice(0, k.indexOf('|'))) < nowMinute - 60_000)
                    this.kept.delete(k);
        }
        for (const [k, n] of increments)
            this.kept.set(k, (this.kept.get(k) ?? 0) + n);
    }
}
/** `labels[i]` are the labels of `calls[i]`; executions come counted (executions.ts), labels and all. */
export function buildWrite(source, calls, labels, executions, cap, nowMs, redactor) {
    const aggregates = new Map();
    const failures = [];
    const drops = new Map();
    const capUse = new Map();
    let dropped = 0;
    const redactionFailures = { arguments: 0, message: 0 };
    for (let i = 0; i < calls.length; i++) {
        const c = calls[i];
        const { service, model, tool } = labels[i];
        const o = c.outcome;
        const minute = minuteOf(c.timeMs);
        const reason = o.outcome === 'unvalidated' ? o.reason : o.outcome === 'InvalidJson' ? o.cause : '';
        const key = `${minute}\u0000${service}\u0000${model}\u0000${tool}\u0000${o.outcome}\u0000${reason}`;
        const agg = aggregates.get(key);
        if (agg)
            agg.count++;
        else
            aggregates.set(key, { minute, source, service, model, tool, outcome: o.outcome, reason, count: 1 });
        if (o.outcome !== 'InvalidJson' && o.outcome !== 'UnknownName' && o.outcome !== 'SchemaMismatch')
            continue;
        const capKey = `${minute}|${service}|${tool}`;
        const used = cap.used(capKey) + (capUse.get(capKey) ?? 0);
        if (used >= cap.perMinute) {
            dropped++;
            const d = drops.get(capKey);
            if (d)
                d.dropped++;
            else
                drops.set(capKey, { minute, service, tool, dropped: 1 });
            continue;
        }
        capUse.set(capKey, (capUse.get(capKey) ?? 0) + 1);
        // Only what is stored is masked; the outcome above was decided on the arguments as sent.
        const args = c.args.kind !== 'none' ? redactor.json(c.args.raw.slice(0, MAX_ARGS + REDACT_MARGIN)) : undefined;
        const text = o.outcome === 'InvalidJson'
            ? o.message
            : o.outcome === 'UnknownName'
                ? `not among the offered tools: ${o.known.slice(0, 50).join(', ')}`
                : c.schemaFrom === 'tool_span'
                    ? `${summarize(o.errors)} (schema from the tool span)`
                    : summarize(o.errors);
        // A JSON parse error quotes the input it choked on.
        const message = o.outcome === 'InvalidJson' ? redactor.text(text) : { ok: true, value: text };
        if (args && !args.ok)
            redactionFailures.arguments++;
        if (!message.ok)
            redactionFailures.message++;
        failures.push({
            // Span times carry sub-millisecond fractions; the stores keep whole milliseconds.
            timeMs: Math.floor(c.timeMs),
            source,
            service,
            model,
            tool,
            name: clip(c.name, 1000),
            outcome: o.outcome,
            traceId: storedId(c.traceId),
            spanId: storedId(c.spanId),
            ...(c.callId ? { callId: storedId(c.callId) } : {}),
            ...(args?.ok ? { arguments: clip(args.value, MAX_ARGS) } : {}),
            ...(args && !args.ok ? { argumentsOmitted: args.reason } : {}),
            errors: o.outcome === 'SchemaMismatch' ? o.errors : [],
            message: clip(message.ok ? message.value : `[message not stored: ${message.reason}]`, 2000),
            ...(o.outcome === 'InvalidJson' ? { reason: o.cause } : {}),
        });
    }
    const execAggs = new Map();
    for (const e of executions) {
        const { service, model, tool, status, callOutcome } = e;
        const minute = minuteOf(e.timeMs || nowMs);
        const key = `${minute}\u0000${service}\u0000${model}\u0000${tool}\u0000${status}\u0000${callOutcome}`;
        const agg = execAggs.get(key);
        if (agg)
            agg.count++;
        else
            execAggs.set(key, { minute, source, service, model, tool, status, callOutcome, count: 1 });
    }
    return {
        rows: {
            callAggregates: [...aggregates.values()],
            executionAggregates: [...execAggs.values()],
            failures,
            failureDrops: [...drops.values()],
        },
        dropped,
        redactionFailures,
        commitCaps: () => cap.commit(capUse, minuteOf(nowMs)),
    };
}
function summarize(errors) {
    return errors
        .slice(0, 3)
        .map((e) => `${e.instancePath || '/'} ${e.message}`)
        .join('; ');
}
//# sourceMappingURL=write-batch.js.map