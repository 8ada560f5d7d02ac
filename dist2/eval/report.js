import { evaluate, missing } from './evaluate.js';
import { checkGates } from './gates.js';
import { modelKey } from './records.js';
import { caseStability, computeMetrics } from './score.js';
import { toolsFor } from './suite.js';
export const REPORT_VERSION = 1;
function argCounts(evals) {
    const out = {};
    for (const m of evals.flatMap((e) => e.argMatches ?? [])) {
        const c = (out[m.mode] ??= { checks: 0, equal: 0, asked: 0, matched: 0, pending: 0, invalid: 0 });
        c.checks++;
        c[m.status]++;
        if (m.status === 'asked' && m.match)
            c.matched++;
    }
    return Object.keys(out).length ? out : undefined;
}
function observationOf(r) {
    return {
        repeat: r.repeat,
        status: r.status,
        ...(r.error ? { error: r.error } : {}),
        turns: r.turns,
        latencyMs: r.latencyMs,
        usage: r.usage ?? { inputTokens: 0, outputTokens: 0 },
        ...(r.endState !== undefined ? { endState: r.endState } : {}),
    };
}
function caseReport(c, evals) {
    const passes = evals.filter((e) => e.strictPass).length;
    const { outcomes: _outcomes, ...stability } = caseStability(evals);
    return {
        id: c.id,
        tags: c.tags,
        kind: c.expected.kind,
        expected: evals[0]?.expectedLabel ?? '',
        ...(c.traceId ? { traceId: c.traceId } : {}),
        planned: evals.length,
        passes,
        pass: passes === evals.length && evals.length > 0,
        stability,
        observations: evals.map((e) => ({
            repeat: e.repeat,
            status: e.status,
            ...(e.errorCode ? { errorCode: e.errorCode } : {}),
            decision: e.decisionLabel,
            strictPass: e.strictPass,
            exactMatch: e.exactMatch,
            problems: e.problems,
            latencyMs: e.latencyMs,
            tokens: e.inputTokens + e.outputTokens,
            ...(e.judge
                ? {
                    judge: {
                        status: e.judge.status,
                        pass: e.judge.pass,
                        fields: e.judge.fields,
                        ...(e.judge.reasoning ? { reasoning: e.judge.reasoning } : {}),
                    },
                }
                : {}),
            ...(e.argMatches ? { argumentMatches: e.argMatches } : {}),
        })),
    };
}
export function buildReport(suite, results, runs, now = Date.now(), judge, argMatch) {
    const ids = new Set(suite.cases.map((c) => c.id));
    const unknown = new Set();
    const groups = new Map();
    for (const r of results) {
        if (!ids.has(r.caseId)) {
            unknown.add(r.caseId);
            continue;
        }
        const k = modelKey(r.label, r.variant);
        let g = groups.get(k);
        if (!g)
            groups.set(k, (g = []));
        g.push(r);
    }
    const clarification = new RegExp(suite.settings.clarificationPattern, 'u');
    const models = [];
    const itemsByKey = new Map();
    for (const [key, recs] of groups) {
        const first = recs[0];
        const run = runs.find((x) => x.runId === first.runId);
        const repeats = run?.repeats ?? Math.max(suite.settings.repeats, ...recs.map((r) => r.repeat));
        const byCase = new Map();
        for (const r of recs) {
            let m = byCase.get(r.caseId);
            if (!m)
                byCase.set(r.caseId, (m = new Map()));
            m.set(r.repeat, r);
        }
        const items = suite.cases.map((c) => {
            const ctx = {
                offered: toolsFor(suite, c, first.variant),
                schemas: suite.schemas,
                clarification,
                ...(judge?.lookup ? { judge: judge.lookup } : {}),
                ...(argMatch ? { argMatch: argMatch.lookup } : {}),
            };
            const evals = [];
            for (let rep = 1; rep <= repeats; rep++) {
                const r = byCase.get(c.id)?.get(rep);
                evals.push(r ? evaluate(c, observationOf(r), ctx) : missing(c, rep));
            }
            return { case: c, evals };
        });
        itemsByKey.set(key, items);
        const overall = computeMetrics(items, repeats);
        const tags = [...new Set(suite.cases.flatMap((c) => c.tags))].sort();
        // Own properties only: a tag named `__proto__` is a tag, not the object's prototype.
        const byTag = Object.fromEntries(tags.map((t) => [
            t,
            computeMetrics(items.filter((i) => i.case.tags.includes(t)), repeats),
        ]));
        const gates = first.variant === 'core' ? checkGates(overall, suite.settings.gates) : [];
        const counts = argCounts(items.flatMap((i) => i.evals));
        models.push({
            key,
            label: first.label,
            provider: first.provider,
            model: first.model,
            variant: first.variant,
            runId: first.runId,
            repeats,
            overall,
            byTag,
            cases: items.map((i) => caseReport(i.case, i.evals)),
            gates,
            passed: gates.every((g) => g.status !== 'failed'),
            ...(counts ? { argumentMatches: counts } : {}),
        });
    }
    models.sort((a, b) => a.key.localeCompare(b.key));
    const judged = judge?.finish(models, itemsByKey);
    return {
        toolwatchEvalReport: REPORT_VERSION,
        generatedAt: new Date(now).toISOString(),
        suite: {
            name: suite.name,
            datasetVersion: suite.settings.datasetVersion,
            cases: suite.cases.length,
            skipped: suite.skipped.map((s) => ({ id: s.id, reason: s.reason, ...(s.traceId ? { traceId: s.traceId } : {}) })),
        },
        gates: suite.settings.gates,
        models,
        unknownCases: [...unknown].sort(),
        passed: models.every((m) => m.passed),
        ...(judged ? { judge: judged } : {}),
        ...(argMatch?.usage ? { argumentMatch: argMatch.usage } : {}),
    };
}
//# sourceMappingURL=report.js.map