/**
 * JUnit XML: one <testsuite> per model, one <testcase> per case (classname = suite.model). A case
 * fails (<failure>) when any repeat the model answered failed; when every failing repeat was a
 * provider error or a missing record it is an <error> (coverage loss, not the model's decision).
 * Cases waiting for review are <skipped>.
 */
import { judgeProperties } from './judge-report.js';
export function xmlEscape(s) {
    // Characters XML 1.0 cannot carry at all are dropped.
    return s
        .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&apos;');
}
const secs = (ms) => (ms / 1000).toFixed(3);
/** An element with escaped attributes; `body` is already XML (or undefined for an empty element). */
function el(name, attrs, body) {
    const a = Object.entries(attrs)
        .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
        .join('');
    return body === undefined ? `<${name}${a}/>` : `<${name}${a}>${body}</${name}>`;
}
export function toJUnit(report) {
    let tests = 0;
    let failures = 0;
    let errors = 0;
    let skipped = 0;
    const suites = [];
    for (const m of report.models) {
        const classname = `${report.suite.name}.${m.key}`;
        const body = [];
        const props = judgeProperties(m, xmlEscape);
        if (props)
            body.push(props);
        let f = 0;
        let e = 0;
        let timeMs = 0;
        for (const c of m.cases) {
            const caseMs = c.observations.reduce((a, o) => a + o.latencyMs, 0);
            timeMs += caseMs;
            const attrs = { classname, name: c.id, time: secs(caseMs) };
            if (c.pass) {
                body.push(`    ${el('testcase', attrs)}`);
                continue;
            }
            const bad = c.observations.filter((o) => !o.strictPass);
            const answeredBad = bad.filter((o) => o.status === 'ok');
            const detail = bad
                .map((o) => `repeat ${o.repeat}: ${o.status === 'ok' ? o.decision : o.status}: ${o.problems.join('; ')}`)
                .join('\n');
            const message = (answeredBad[0] ?? bad[0])?.problems[0] ?? 'failed';
            const text = xmlEscape(detail + (c.traceId ? `\ntrace_id: ${c.traceId}` : ''));
            // A repeat the model answered wrongly is a failure; only provider errors / missing records: an error.
            const inner = answeredBad.length
                ? el('failure', { message, type: c.kind }, text)
                : el('error', { message, type: 'coverage' }, text);
            if (answeredBad.length)
                f++;
            else
                e++;
            body.push(`    ${el('testcase', attrs, inner)}`);
        }
        for (const s of report.suite.skipped) {
            body.push(`    ${el('testcase', { classname, name: s.id, time: secs(0) }, el('skipped', { message: 'waiting for review' }))}`);
        }
        const n = m.cases.length + report.suite.skipped.length;
        tests += n;
        failures += f;
        errors += e;
        skipped += report.suite.skipped.length;
        const attrs = {
            name: m.key,
            tests: n,
            failures: f,
            errors: e,
            skipped: report.suite.skipped.length,
            time: secs(timeMs),
        };
        suites.push(el('testsuite', attrs, `\n${body.join('\n')}\n  `).replace(/^/, '  '));
    }
    const attrs = { name: `toolwatch eval ${report.suite.name}`, tests, failures, errors, skipped };
    return `<?xml version="1.0" encoding="UTF-8"?>\n${el('testsuites', attrs, `\n${suites.join('\n')}\n`)}\n`;
}
//# sourceMappingURL=junit.js.map