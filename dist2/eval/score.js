/**
 * Evaluated observations → metrics. Pure. Every rate carries its numerator and denominator.
 *
 * Denominators are planned observations (cases × repeats): a provider error or a missing record is
 * a failure there, never a pass and never a correct non-call. Rates of a behaviour among answers
 * (needless clarification, request acceptance, structural validity) count only what was answered.
 * Single-decision metrics (exact match, should/should-not call, selection, arguments, confusion,
 * macro-F1) leave trajectory cases out; strict pass, stability and pass^k cover every case.
 */
import { MISSING } from './evaluate.js';
export function rate(numerator, denominator) {
    return { value: denominator > 0 ? round(numerator / denominator) : null, numerator: round(numerator), denominator };
}
export const round = (x) => Math.round(x * 1e6) / 1e6;
function count(xs, f) {
    let n = 0;
    for (const x of xs)
        if (f(x))
            n++;
    return n;
}
function quantile(sorted, q) {
    if (!sorted.length)
        return null;
    return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? null;
}
function binom(n, k) {
    if (k < 0 || k > n)
        return 0;
    let r = 1;
    for (let i = 1; i <= k; i++)
        r = (r * (n - k + i)) / i;
    return r;
}
/**
 * Labels are tool names the model chose: `constructor`, `__proto__`, `toString` must count like any
 * other. So the matrix is counted in Maps and written out with own properties only (Object.fromEntries),
 * and read back (from report.json too) through Object.entries — never by indexing a plain object,
 * where a missing `constructor` row would find Object's.
 */
function rowsOf(confusion) {
    return new Map(Object.entries(confusion).map(([row, cols]) => [row, new Map(Object.entries(cols))]));
}
export function toRecord(m, f) {
    return Object.fromEntries([...m].map(([k, v]) => [k, f(v)]));
}
export function macroF1(confusion) {
    const rows = rowsOf(confusion);
    const classes = new Set();
    for (const [row, cols] of rows) {
        classes.add(row);
        for (const c of cols.keys())
            classes.add(c);
    }
    classes.delete(MISSING);
    let sum = 0;
    for (const c of classes) {
        const tp = rows.get(c)?.get(c) ?? 0;
        let fp = 0;
        let fn = 0;
        for (const [row, cols] of rows) {
            for (const [col, n] of cols) {
                if (row !== c && col === c)
                    fp += n;
                if (row === c && col !== c)
                    fn += n;
            }
        }
        sum += tp + fp + fn > 0 ? (2 * tp) / (2 * tp + fp + fn) : 0;
    }
    return rate(sum, classes.size);
}
export function computeMetrics(items, repeats) {
    const all = items.flatMap((i) => i.evals);
    const kindOf = new Map(items.map((i) => [i.case.id, i.case.expected.kind]));
    const kind = (e) => kindOf.get(e.caseId);
    // Cases with no reference (kind judge) have no deterministic single decision: judge-score.ts rates them.
    const single = all.filter((e) => kind(e) !== 'trajectory' && kind(e) !== 'judge' && kind(e) !== 'state');
    const answered = all.filter((e) => e.status === 'ok');
    const shouldCall = single.filter((e) => kind(e) === 'tool');
    const shouldNot = single.filter((e) => kind(e) !== 'tool');
    const clar = all.filter((e) => kind(e) === 'clarification');
    const counted = new Map();
    for (const e of single) {
        let row = counted.get(e.expectedLabel);
        if (!row)
            counted.set(e.expectedLabel, (row = new Map()));
        row.set(e.decisionLabel, (row.get(e.decisionLabel) ?? 0) + 1);
    }
    const confusion = toRecord(counted, (row) => toRecord(row, (n) => n));
    const calls = answered.flatMap((e) => e.calls);
    const byOutcome = (o) => count(calls, (c) => c.outcome === o);
    const validity = {
        calls: calls.length,
        valid: byOutcome('valid'),
        InvalidJson: byOutcome('InvalidJson'),
        UnknownName: byOutcome('UnknownName'),
        SchemaMismatch: byOutcome('SchemaMismatch'),
        unvalidated: byOutcome('unvalidated'),
        validRate: rate(byOutcome('valid'), calls.length - byOutcome('unvalidated')),
    };
    let mostCommon = 0;
    let successful = 0;
    let stableCases = 0;
    let casesObserved = 0;
    const hat = Array.from({ length: repeats }, () => 0);
    for (const i of items) {
        const s = caseStability(i.evals);
        if (s.denominator > 0) {
            casesObserved++;
            mostCommon += s.numerator;
            successful += s.denominator;
            if (s.numerator === s.denominator)
                stableCases++;
        }
        const passes = count(i.evals, (e) => e.strictPass);
        for (let k = 1; k <= repeats; k++)
            hat[k - 1] += binom(repeats, k) > 0 ? binom(passes, k) / binom(repeats, k) : 0;
    }
    const byCode = {};
    for (const e of all)
        if (e.status === 'provider_error' && e.errorCode)
            byCode[e.errorCode] = (byCode[e.errorCode] ?? 0) + 1;
    const passes = count(all, (e) => e.strictPass);
    const inputTokens = all.reduce((a, e) => a + e.inputTokens, 0);
    const outputTokens = all.reduce((a, e) => a + e.outputTokens, 0);
    const totalTokens = inputTokens + outputTokens;
    const withRecord = all.length - count(all, (e) => e.status === 'missing');
    const latencies = answered.map((e) => e.latencyMs).sort((a, b) => a - b);
    const totalLatency = latencies.reduce((a, b) => a + b, 0);
    const recoveryPool = all.filter((e) => e.errorReturned);
    const tool = answered.filter((e) => kind(e) === 'tool' && e.selectionPass !== null);
    return {
        cases: items.length,
        planned: all.length,
        observed: answered.length,
        coverage: rate(answered.length, all.length),
        exactMatchRate: rate(count(single, (e) => e.exactMatch === true), single.length),
        shouldCallPassRate: rate(count(shouldCall, (e) => e.exactMatch === true), shouldCall.length),
        shouldNotCallPassRate: rate(count(shouldNot, (e) => e.exactMatch === true), shouldNot.length),
        selectionAccuracy: rate(count(single, (e) => e.selectionPass === true), single.length),
        macroF1: macroF1(confusion),
        confusion,
        strictPassRate: rate(passes, all.length),
        argsAccuracy: rate(count(shouldCall, (e) => e.argsPass === true), count(shouldCall, (e) => e.argsPass !== null)),
        validity,
        requestAcceptanceRate: rate(all.reduce((a, e) => a + e.answered, 0), all.reduce((a, e) => a + e.answered + e.rejected, 0)),
        clarificationAccuracy: rate(count(clar, (e) => e.clarified), clar.length),
        needlessClarificationRate: rate(count(tool, (e) => e.clarified), tool.length),
        recoveryRate: rate(count(recoveryPool, (e) => e.recovered), recoveryPool.length),
        // Outcome-state cases (expected_state) are multi-step too: counted here with the trajectories.
        trajectoryPassRate: rate(count(all, (e) => (kind(e) === 'trajectory' || kind(e) === 'state') && e.strictPass), count(all, (e) => kind(e) === 'trajectory' || kind(e) === 'state')),
        stability: { ...rate(mostCommon, successful), stableCases, casesObserved },
        passHatK: hat.map((sum, i) => ({ k: i + 1, ...rate(sum, items.length) })),
        providerErrors: {
            total: count(all, (e) => e.status === 'provider_error'),
            missing: count(all, (e) => e.status === 'missing'),
            byCode,
        },
        tokens: { input: inputTokens, output: outputTokens, total: totalTokens },
        tokensPerCase: withRecord > 0 ? round(totalTokens / withRecord) : null,
        tokensPerSuccess: passes > 0 ? round(totalTokens / passes) : null,
        latencyPerCaseMs: latencies.length ? round(totalLatency / latencies.length) : null,
        latencyPerSuccessMs: passes > 0 ? round(totalLatency / passes) : null,
        latencyMs: {
            p50: quantile(latencies, 0.5),
            p90: quantile(latencies, 0.9),
            max: latencies.length ? latencies[latencies.length - 1] : null,
        },
    };
}
/** Most common normalized outcome / successful repeats, for one case. */
export function caseStability(evals) {
    // Keys hold tool names (model output): counted in a Map, like the confusion matrix.
    const outcomes = new Map();
    for (const e of evals)
        if (e.status === 'ok' && e.key !== undefined)
            outcomes.set(e.key, (outcomes.get(e.key) ?? 0) + 1);
    const counts = [...outcomes.values()];
    const successful = counts.reduce((a, b) => a + b, 0);
    return { ...rate(counts.length ? Math.max(...counts) : 0, successful), outcomes: toRecord(outcomes, (n) => n) };
}
//# sourceMappingURL=score.js.map