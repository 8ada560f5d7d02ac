import { judgeMarkdown } from './judge-report.js';
import { replaceControl } from '../util/control-chars.js';
const MAX_FAILING = 20;
const ZWSP = '\u200b';
/**
 * Text for a Markdown table cell or heading, from names and model output: shown as written, never
 * acted on. Links and images (`[x](y)`, `![x](y)`) lose their brackets to backslash escapes (so do
 * emphasis, strikethrough and code marks; an underscore inside a word is never emphasis); raw HTML
 * by entities; bare URLs (`https://…`, `www.…`, which GitHub links by itself) and `@mentions` get a
 * zero-width space so nothing links or notifies; pipes cannot end the cell; line breaks and other
 * control characters become spaces.
 */
export function mdCell(s) {
    const flat = replaceControl(s.slice(0, 600)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const escaped = flat.replace(/[\\`*[\]|~]/g, '\\$&');
    const inert = escaped
        .replace(/@(?=[A-Za-z0-9])/g, `@${ZWSP}`)
        .replace(/:\/\//g, `:${ZWSP}//`)
        .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}${ZWSP}.`);
    return clip(inert, 300);
}
/** Cut without leaving a lone escaping backslash or half an entity at the end. */
function clip(s, max) {
    if (s.length <= max)
        return s;
    let out = s.slice(0, max).replace(/&[a-z]{0,3}$/, '');
    const trailing = /\\+$/.exec(out)?.[0].length ?? 0;
    if (trailing % 2 === 1)
        out = out.slice(0, -1);
    return /[\ud800-\udbff]$/.test(out) ? out.slice(0, -1) : out;
}
export const pct = (v) => `${(v * 100).toFixed(1)}%`;
const r = (x) => (x.value === null ? '—' : `${pct(x.value)} (${x.numerator}/${x.denominator})`);
/** Macro-F1 is a mean of per-tool scores, not a count over a count: shown as a number. */
const f1 = (x) => (x.value === null ? '—' : x.value.toFixed(3));
const COLUMNS = [
    ['selection', (m) => m.selectionAccuracy],
    ['strict pass', (m) => m.strictPassRate],
    ['args', (m) => m.argsAccuracy],
    ['exact match', (m) => m.exactMatchRate],
    ['should call', (m) => m.shouldCallPassRate],
    ['should not call', (m) => m.shouldNotCallPassRate],
    ['macro-F1', (m) => m.macroF1, f1],
    ['valid calls', (m) => m.validity.validRate],
    ['coverage', (m) => m.coverage],
];
export function toMarkdown(report) {
    const lines = [];
    const ok = report.passed;
    lines.push(`## toolwatch eval — ${mdCell(report.suite.name)} (dataset ${mdCell(report.suite.datasetVersion)})`, '');
    lines.push(ok ? '**All gates passed.**' : '**A gate failed.**', '');
    if (report.replay) {
        lines.push(`### Replay of production failures (${report.replay.cases} case(s), reference-free: the production checker, then the judge where configured)`, '', '| model | pass^k (every repeat passed) | pass^1 | valid calls |', '|---|---|---|---|');
        for (const m of report.models) {
            const h = m.overall.passHatK;
            lines.push(`| ${mdCell(m.key)} | ${h.length ? r(h[h.length - 1]) : '—'} | ${h[0] ? r(h[0]) : '—'} | ${r(m.overall.validity.validRate)} |`);
        }
        lines.push('');
    }
    lines.push(`| model | ${COLUMNS.map((c) => c[0]).join(' | ')} |`, `|---|${COLUMNS.map(() => '---').join('|')}|`);
    for (const m of report.models)
        lines.push(`| ${mdCell(m.key)} | ${COLUMNS.map(([, get, fmt]) => (fmt ?? r)(get(m.overall))).join(' | ')} |`);
    lines.push('');
    const extra = report.models.filter((m) => m.overall.clarificationAccuracy.denominator || m.overall.recoveryRate.denominator || m.repeats > 1);
    if (extra.length) {
        lines.push('| model | clarification | needless questions | recovery | trajectory | stability | pass^k | provider errors |', '|---|---|---|---|---|---|---|---|');
        for (const m of extra) {
            const o = m.overall;
            const hat = o.passHatK[o.passHatK.length - 1];
            lines.push(`| ${mdCell(m.key)} | ${r(o.clarificationAccuracy)} | ${r(o.needlessClarificationRate)} | ${r(o.recoveryRate)} | ${r(o.trajectoryPassRate)} | ` +
                `${r(o.stability)} | ${hat ? `k=${hat.k}: ${r(hat)}` : '—'} | ${o.providerErrors.total + o.providerErrors.missing} |`);
        }
        lines.push('');
    }
    lines.push(...judgeMarkdown(report, pct, mdCell));
    const gated = report.models.filter((m) => m.gates.length);
    if (gated.length) {
        lines.push('### Gates', '', '| model | gate | threshold | value | status |', '|---|---|---|---|---|');
        for (const m of gated) {
            for (const g of m.gates) {
                const v = g.value === null ? '—' : `${pct(g.value)} (${g.numerator}/${g.denominator})`;
                lines.push(`| ${mdCell(m.key)} | ${g.gate} | ${g.threshold} | ${v} | ${g.status === 'failed' ? '❌ failed' : g.status === 'passed' ? '✅ passed' : 'skipped'} |`);
            }
        }
        lines.push('');
    }
    for (const m of report.models) {
        const failing = m.cases.filter((c) => !c.pass);
        if (!failing.length)
            continue;
        lines.push(`### Failing cases — ${mdCell(m.key)} (${failing.length})`, '', '| case | expected | got | why |', '|---|---|---|---|');
        for (const c of failing.slice(0, MAX_FAILING)) {
            const bad = c.observations.find((o) => !o.strictPass);
            const got = bad
                ? bad.status === 'ok'
                    ? bad.decision
                    : `${bad.status}${bad.errorCode ? ` (${bad.errorCode})` : ''}`
                : '';
            const why = bad?.problems.join('; ') ?? '';
            const id = c.traceId ? `${c.id} (trace ${c.traceId})` : c.id;
            lines.push(`| ${mdCell(id)} | ${mdCell(c.expected)} | ${mdCell(got)} | ${mdCell(why)} |`);
        }
        if (failing.length > MAX_FAILING)
            lines.push('', `… and ${failing.length - MAX_FAILING} more (see report.json).`);
        lines.push('');
    }
    if (report.suite.skipped.length)
        lines.push(`${report.suite.skipped.length} case(s) waiting for review (not run): ${report.suite.skipped.map((s) => mdCell(s.id)).join(', ')}`, '');
    return lines.join('\n');
}
export function comparisonMarkdown(c) {
    const lines = [
        `## toolwatch eval compare — ${mdCell(c.suite)}`,
        '',
        c.passed ? '**Passed.**' : '**Failed.**',
        '',
    ];
    for (const m of c.models) {
        lines.push(`### ${m.passed ? '✅' : '❌'} ${mdCell(m.key)}${m.inBaseline ? '' : ' (no baseline)'}`, '');
        if (m.drops.length) {
            lines.push('| rate | baseline | now | change |', '|---|---|---|---|');
            for (const d of m.drops) {
                lines.push(`| ${d.metric} | ${pct(d.baseline)} | ${pct(d.current)} | ${d.deltaPp >= 0 ? '+' : ''}${d.deltaPp} pp${d.failed ? ' ❌' : ''} |`);
            }
            lines.push('');
        }
        for (const g of m.gates.filter((x) => x.status === 'failed'))
            lines.push(`- gate ${g.gate} ≥ ${g.threshold} failed: ${g.value === null ? '—' : pct(g.value)}`);
        if (m.broke.length)
            lines.push(`- broke: ${m.broke.map(mdCell).join(', ')}`);
        if (m.fixed.length)
            lines.push(`- fixed: ${m.fixed.map(mdCell).join(', ')}`);
        if (m.added.length)
            lines.push(`- new cases: ${m.added.map(mdCell).join(', ')}`);
        lines.push('');
    }
    return lines.join('\n');
}
//# sourceMappingURL=markdown.js.map