import { OUTCOMES } from '../model.js';
import { peekLabel, scopeLabel } from './write-batch.js';
export class BatchMetrics {
    deps;
    durations = new Map();
    trajectoryChildren = new Map();
    constructor(deps) {
        this.deps = deps;
    }
    /** A committed batch's spans into the coverage report; LLM-looking spans no reader knew, per scope, into the metric. */
    observeSpans(coverage, spans, perSpan, budget) {
        let unrecognized;
        for (let i = 0; i < spans.length; i++) {
            const span = spans[i];
            if (coverage.observeSpan(span, perSpan[i], budget) !== 'unrecognized')
                continue;
            unrecognized ??= new Map();
            unrecognized.set(span.scope, (unrecognized.get(span.scope) ?? 0) + 1);
        }
        if (!unrecognized)
            return;
        const { metrics, labels } = this.deps;
        for (const [scope, n] of unrecognized)
            metrics.spansUnrecognized.inc({ scope: scopeLabel(scope, labels, budget) }, n);
    }
    /** The latency histogram's child for a stored service and tool (their labels: capped), bound once (metrics/bound-histogram.ts). */
    durationOf(service, tool) {
        const cap = this.deps.labels;
        const labels = { service: peekLabel(cap, 'service', service), tool: peekLabel(cap, 'tool', tool) };
        const key = `${labels.service}\u0000${labels.tool}`;
        let child = this.durations.get(key);
        if (!child)
            this.durations.set(key, (child = this.deps.metrics.toolExecutionDuration.bind(labels)));
        return child;
    }
    /** The trajectory histograms' children of a service (bound once, like durationOf). */
    trajectoryHistograms(service, m) {
        let c = this.trajectoryChildren.get(service);
        if (!c) {
            const l = { service };
            c = {
                toolCalls: m.trajectoryToolCalls.bind(l),
                steps: m.trajectorySteps.bind(l),
                failedCalls: m.trajectoryFailedCalls.bind(l),
                duration: m.trajectoryDuration.bind(l),
                tokens: m.trajectoryTokens.bind(l),
            };
            this.trajectoryChildren.set(service, c);
        }
        return c;
    }
    /**
     * Moves the metrics of a committed batch, under the labels its rows were stored with, and tells each
     * call's ledger entry its outcome and model (what its execution is counted with).
     */
    count(source, calls, labels, entries, plan, duplicates, nowMs, budgetOf) {
        const m = this.deps.metrics;
        for (let i = 0; i < calls.length; i++) {
            const o = calls[i].outcome;
            const l = labels[i];
            const { service, model, tool } = l.metric;
            m.toolCalls.inc({ service, model, tool, outcome: o.outcome, source });
            if (o.outcome === 'unvalidated')
                m.unvalidated.inc({ service, reason: o.reason });
            else if (o.outcome === 'InvalidJson')
                m.invalidJson.inc({ service, reason: o.cause });
            const entry = entries[i];
            if (entry) {
                entry.outcome = o.outcome;
                // Its execution's stored row takes the call's stored model.
                entry.model = l.model;
                this.deps.ledger.counted(entry);
            }
        }
        this.deps.trajectories?.calls(calls, labels, nowMs);
        const coverage = this.deps.coverage;
        if (coverage) {
            // Calls read from a span, wherever they were counted (a held call settled later keeps its scope).
            for (let i = 0; i < calls.length; i++) {
                const c = calls[i];
                if (c.scope === undefined)
                    continue;
                const origin = { scope: c.scope, scopeVersion: c.scopeVersion ?? '', service: c.service };
                coverage.observeCall(origin, c.outcome, budgetOf(i));
            }
        }
        if (plan.dropped)
            m.failureRecordsDropped.inc(plan.dropped);
        for (const [what, n] of Object.entries(plan.redactionFailures))
            if (n)
                m.redactionFailures.inc({ what }, n);
        if (duplicates)
            m.duplicateSpans.inc(duplicates);
    }
}
/** The outcome and model label each call of a batch is counted with, by its ledger entry (for the journal). */
export function countedAs(entries, calls, labels) {
    const index = new Map();
    for (let i = 0; i < entries.length; i++)
        index.set(entries[i], i);
    return (e) => {
        const i = index.get(e);
        return i === undefined ? undefined : [calls[i].outcome.outcome, labels[i].model];
    };
}
/** The `ingest batch` span's attributes (README, Self-telemetry): sizes and the calls by outcome. */
export function batchAttributes(source, s, calls) {
    const byOutcome = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
    for (const c of calls)
        byOutcome[c.outcome.outcome]++;
    const attrs = {
        'toolwatch.source': source,
        'toolwatch.spans': s.spans,
        'toolwatch.calls': s.calls,
        'toolwatch.failures': s.failures,
        'toolwatch.executions': s.executions,
        'toolwatch.deferred_calls': s.deferred,
        'toolwatch.duplicate_spans': s.duplicateSpans,
    };
    for (const o of OUTCOMES)
        attrs[`toolwatch.calls.${o}`] = byOutcome[o];
    return attrs;
}
//# sourceMappingURL=batch-metrics.js.map