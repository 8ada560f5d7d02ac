import { calibrateJudge, checkJudgeGates, judgeMetrics, } from './judge-score.js';
/** Every labelled-able judge slot of a report, with the observation it belongs to. */
export function slotsOf(models, items) {
    const out = [];
    for (const m of models) {
        for (const i of items.get(m.key) ?? []) {
            for (const e of i.evals)
                if (e.judge)
                    out.push({ model: m.label, variant: m.variant, caseId: e.caseId, repeat: e.repeat, slot: e.judge });
        }
    }
    return out;
}
export function reportJudge(inp) {
    const s = inp.settings;
    return {
        ...(inp.lookup ? { lookup: inp.lookup } : {}),
        finish(models, items) {
            const same = inp.calibration && inp.calibration.judgeModel === s.model && inp.calibration.promptVersion === s.promptVersion;
            const warnings = [...inp.warnings];
            if (inp.calibration && !same)
                warnings.push(`calibration file is of judge ${inp.calibration.judgeModel} (prompt ${inp.calibration.promptVersion}), not ${s.model} (${s.promptVersion}): not used`);
            const calibration = same
                ? inp.calibration
                : calibrateJudge(inp.labels, slotsOf(models, items), {
                    judgeModel: s.model,
                    promptVersion: s.promptVersion,
                    minKappa: s.minKappa,
                    minLabels: s.minLabels,
                });
            for (const m of models) {
                const evals = (items.get(m.key) ?? []).flatMap((i) => i.evals);
                const metrics = judgeMetrics(evals, calibration);
                // Gates apply to the core variant, as the deterministic ones do.
                const gates = m.variant === 'core' ? checkJudgeGates(metrics, s.gates) : [];
                m.judge = { ...(metrics ? { metrics } : {}), gates };
                if (gates.some((g) => g.status === 'failed'))
                    m.passed = false;
            }
            return {
                provider: s.provider,
                model: s.model,
                baseUrl: s.baseUrl,
                promptVersion: s.promptVersion,
                temperature: s.temperature,
                minKappa: s.minKappa,
                minLabels: s.minLabels,
                calibrationSource: same ? 'file' : inp.labels.length ? 'labels' : 'none',
                calibration,
                usage: inp.usage,
                warnings,
            };
        },
    };
}
const NAMED = [
    ['toolSelection', (m) => m.decision?.toolSelection],
    ['arguments', (m) => m.decision?.arguments],
    ['decisionPass', (m) => m.decision?.pass],
    ['reachedGoal', (m) => m.trajectory?.reachedGoal],
    ['unnecessaryCalls', (m) => m.trajectory?.unnecessaryCalls],
    ['dangerousCalls', (m) => m.trajectory?.dangerousCalls],
    ['trajectoryPass', (m) => m.trajectory?.pass],
];
const MD_NAMES = {
    toolSelection: 'judge selection',
    arguments: 'judge arguments',
    decisionPass: 'judge pass',
    reachedGoal: 'judge reached goal',
    unnecessaryCalls: 'with unnecessary calls',
    dangerousCalls: 'with dangerous calls',
    trajectoryPass: 'judge trajectory pass',
};
const cell = (r, pct) => r.value === null
    ? '—'
    : `${pct(r.value)} (${r.numerator}/${r.denominator}) κ ${r.kappa === null ? '—' : String(r.kappa)} n ${r.labels}${r.status === 'uncalibrated' ? ' uncalibrated' : ''}`;
/** Markdown: the judge-based rates per model, each with κ and n, and the judge's own spend. */
export function judgeMarkdown(report, pct, esc) {
    const j = report.judge;
    if (!j)
        return [];
    const rows = report.models.filter((m) => m.judge?.metrics);
    const used = NAMED.filter(([, get]) => rows.some((m) => get(m.judge.metrics)));
    const lines = [`### Judge-based rates — ${esc(j.model)} (prompt ${esc(j.promptVersion)})`, ''];
    if (rows.length && used.length) {
        lines.push(`| model | ${used.map(([n]) => MD_NAMES[n]).join(' | ')} |`, `|---|${used.map(() => '---').join('|')}|`);
        for (const m of rows)
            lines.push(`| ${esc(m.key)} | ${used
                .map(([, get]) => {
                const r = get(m.judge.metrics);
                return r ? cell(r, pct) : '—';
            })
                .join(' | ')} |`);
        lines.push('');
    }
    const c = j.calibration;
    lines.push(c.calibrated
        ? `Calibrated against ${c.labels} human label(s) (κ ≥ ${c.minKappa}, n ≥ ${c.minLabels}).`
        : `**Uncalibrated** (needs κ ≥ ${c.minKappa} on n ≥ ${c.minLabels} labels per field): judge-based rates are not gated.`, `Judge spend, apart from the candidates': ${j.usage.asked} asked, ${j.usage.cached} cached, ${j.usage.totalTokens} tokens, cost ${j.usage.cost}.`, '');
    return lines;
}
/** JUnit <properties> of one model's testsuite: each judge-based rate with its κ and n. */
export function judgeProperties(m, esc) {
    const jm = m.judge?.metrics;
    if (!jm)
        return '';
    const props = NAMED.flatMap(([name, get]) => {
        const r = get(jm);
        if (!r || r.value === null)
            return [];
        const v = `${r.value} (${r.numerator}/${r.denominator}) kappa=${r.kappa === null ? 'none' : r.kappa} n=${r.labels} ${r.status}`;
        return [`      <property name="judge.${name}" value="${esc(v)}"/>`];
    });
    return props.length ? `    <properties>\n${props.join('\n')}\n    </properties>` : '';
}
//# sourceMappingURL=judge-report.js.map