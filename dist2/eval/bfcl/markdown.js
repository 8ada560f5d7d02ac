/**
 * The BFCL section for people: per model and category BFCL's accuracy beside toolwatch's view of
 * the same answers (production outcomes, selection, arguments), then BFCL's summaries.
 */
import { mdCell, pct } from '../markdown.js';
const rate = (x) => x === null || x.value === null ? '—' : `${pct(x.value)} (${x.numerator}/${x.denominator})`;
const sum = (s) => (s.value === null ? `N/A (not run: ${s.missing.join(', ')})` : pct(s.value));
export function bfclSummaryLines(report) {
    const lines = [];
    for (const m of report.bfcl?.models ?? []) {
        lines.push(`${m.key}:`);
        for (const c of m.categories) {
            const t = c.toolwatch;
            lines.push(`  ${c.category}: BFCL ${rate(c.accuracy)}; toolwatch selection ${rate(t.selectionAccuracy)}, args ${rate(t.argsAccuracy)}, ` +
                `calls ${t.calls} (valid ${t.valid}, InvalidJson ${t.InvalidJson}, UnknownName ${t.UnknownName}, SchemaMismatch ${t.SchemaMismatch})` +
                (c.noAnswer ? `, no answer ${c.noAnswer}` : ''));
        }
        const s = m.summary;
        lines.push(`  summary: non-live AST ${sum(s.nonLiveAst)}, live AST ${sum(s.liveAst)}`);
    }
    return lines;
}
export function bfclMarkdown(report) {
    const b = report.bfcl;
    const lines = [`## toolwatch eval bfcl (${mdCell(b?.datasetVersion ?? report.suite.datasetVersion)})`, ''];
    for (const m of b?.models ?? []) {
        lines.push(`### ${mdCell(m.key)}`, '');
        lines.push('| category | BFCL accuracy | toolwatch selection | toolwatch args | calls | valid | InvalidJson | UnknownName | SchemaMismatch | no answer |', '|---|---|---|---|---|---|---|---|---|---|');
        for (const c of m.categories) {
            const t = c.toolwatch;
            lines.push(`| ${c.category} | ${rate(c.accuracy)} | ${rate(t.selectionAccuracy)} | ${rate(t.argsAccuracy)} | ${t.calls} | ${t.valid} | ${t.InvalidJson} | ${t.UnknownName} | ${t.SchemaMismatch} | ${c.noAnswer} |`);
        }
        const s = m.summary;
        lines.push('', `Non-live AST (unweighted): ${sum(s.nonLiveAst)} · live AST (weighted by entries): ${sum(s.liveAst)}`, '');
        const failing = m.entries.filter((e) => !e.valid).slice(0, 20);
        if (failing.length) {
            lines.push('| entry | BFCL error type | error |', '|---|---|---|');
            for (const e of failing)
                lines.push(`| ${mdCell(e.id)} | ${mdCell(e.errorType ?? '')} | ${mdCell(e.error ?? '')} |`);
            lines.push('');
        }
    }
    return `${lines.join('\n')}\n`;
}
//# sourceMappingURL=markdown.js.map