/**
 * `eval compare`: a report against the gates and, when given, a baseline report (e.g. main's).
 * Per model: every gate, every gated rate's change in percentage points (a drop beyond max_drop_pp
 * fails), and the cases that changed — fixed (failed before, every repeat passes now) and broke
 * (passed before, not now). Models are matched by key (label, plus the variant).
 */
import { compareBfcl, formatBfclComparison } from './bfcl/compare.js';
import { activeGates, GATE_METRICS } from './gates.js';
import { round } from './score.js';
function gatedDrops(cur, base, gates) {
    const maxDrop = gates.max_drop_pp;
    const out = [];
    for (const [gate] of activeGates(gates)) {
        const metric = GATE_METRICS[gate];
        const a = base.overall[metric].value;
        const b = cur.overall[metric].value;
        if (a === null || b === null)
            continue;
        const deltaPp = round((b - a) * 100);
        // A tolerance of 1e-9 pp keeps float noise from failing an exact 2.0 pp drop.
        out.push({
            gate,
            metric,
            baseline: a,
            current: b,
            deltaPp,
            failed: typeof maxDrop === 'number' && -deltaPp > maxDrop + 1e-9,
        });
    }
    return out;
}
export function compareReports(report, baseline) {
    const gates = report.gates;
    const models = report.models.map((m) => {
        const base = baseline?.models.find((b) => b.key === m.key);
        const drops = base && m.variant === 'core' ? gatedDrops(m, base, gates) : [];
        const before = new Map(base?.cases.map((c) => [c.id, c.pass]) ?? []);
        const now = new Map(m.cases.map((c) => [c.id, c.pass]));
        const fixed = [];
        const broke = [];
        const added = [];
        if (base) {
            for (const [id, pass] of now) {
                if (!before.has(id))
                    added.push(id);
                else if (pass && !before.get(id))
                    fixed.push(id);
                else if (!pass && before.get(id))
                    broke.push(id);
            }
        }
        const removed = base ? [...before.keys()].filter((id) => !now.has(id)) : [];
        const passed = m.gates.every((g) => g.status !== 'failed') && drops.every((d) => !d.failed);
        const bfcl = compareBfcl(m.key, report.bfcl, baseline?.bfcl);
        return {
            key: m.key,
            inBaseline: Boolean(base),
            gates: m.gates,
            drops,
            fixed,
            broke,
            added,
            removed,
            passed,
            ...(bfcl ? { bfcl } : {}),
        };
    });
    const missingModels = baseline
        ? baseline.models.filter((b) => !report.models.some((m) => m.key === b.key)).map((b) => b.key)
        : [];
    return {
        suite: report.suite.name,
        datasetVersion: report.suite.datasetVersion,
        ...(baseline ? { baselineDatasetVersion: baseline.suite.datasetVersion } : {}),
        maxDropPp: typeof gates.max_drop_pp === 'number' ? gates.max_drop_pp : null,
        models,
        missingModels,
        passed: models.every((m) => m.passed),
    };
}
/** A report file as written by `eval score`; anything else is refused (exit 2). */
export function parseReport(text, file) {
    let v;
    try {
        v = JSON.parse(text);
    }
    catch (err) {
        throw new Error(`${file}: not JSON (${err.message})`);
    }
    const r = v;
    if (r?.toolwatchEvalReport !== 1 || !Array.isArray(r.models) || !r.suite || !r.gates) {
        throw new Error(`${file}: not a toolwatch eval report (write one with toolwatch eval score --report)`);
    }
    return r;
}
const pct = (v) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
/** The plain-text summary `compare` prints. */
export function formatComparison(c) {
    const lines = [];
    if (c.baselineDatasetVersion !== undefined && c.baselineDatasetVersion !== c.datasetVersion) {
        lines.push(`note: dataset_version changed ${c.baselineDatasetVersion} → ${c.datasetVersion}; case changes below include edits to the suite`);
    }
    for (const m of c.models) {
        lines.push(`${m.passed ? 'PASS' : 'FAIL'} ${m.key}${m.inBaseline ? '' : ' (no baseline)'}`);
        for (const g of m.gates) {
            lines.push(`  gate ${g.gate} ≥ ${g.threshold}: ${pct(g.value)} (${g.numerator}/${g.denominator}) ${g.status}`);
        }
        for (const d of m.drops) {
            lines.push(`  ${d.metric}: ${pct(d.baseline)} → ${pct(d.current)} (${d.deltaPp >= 0 ? '+' : ''}${d.deltaPp} pp)${d.failed ? ` dropped more than ${c.maxDropPp} pp` : ''}`);
        }
        if (m.fixed.length)
            lines.push(`  fixed: ${m.fixed.join(', ')}`);
        if (m.broke.length)
            lines.push(`  broke: ${m.broke.join(', ')}`);
        if (m.added.length)
            lines.push(`  new cases: ${m.added.join(', ')}`);
        if (m.removed.length)
            lines.push(`  removed cases: ${m.removed.join(', ')}`);
        if (m.bfcl)
            lines.push(...formatBfclComparison(m.bfcl));
    }
    for (const k of c.missingModels)
        lines.push(`note: ${k} is in the baseline but not in the report`);
    lines.push(c.passed ? 'compare: passed' : 'compare: FAILED');
    return lines;
}
//# sourceMappingURL=compare.js.map