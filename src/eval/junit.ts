/**
 * JUnit XML: one <testsuite> per model, one <testcase> per case (classname = suite.model). A case
 * fails (<failure>) when any repeat the model answered failed; when every failing repeat was a
 * provider error or a missing record it is an <error> (coverage loss, not the model's decision).
 * Cases waiting for review are <skipped>.
 */
import type { Report } from './report.js';

export function xmlEscape(s: string): string {
  // Characters XML 1.0 cannot carry at all are dropped.
  return s
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const secs = (ms: number) => (ms / 1000).toFixed(3);

export function toJUnit(report: Report): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  const suites: string[] = [];
  for (const m of report.models) {
    const body: string[] = [];
    let f = 0;
    let e = 0;
    let timeMs = 0;
    for (const c of m.cases) {
      const caseMs = c.observations.reduce((a, o) => a + o.latencyMs, 0);
      timeMs += caseMs;
      const attrs = `classname="${xmlEscape(`${report.suite.name}.${m.key}`)}" name="${xmlEscape(c.id)}" time="${secs(caseMs)}"`;
      if (c.pass) {
        body.push(`    <testcase ${attrs}/>`);
        continue;
      }
      const bad = c.observations.filter((o) => !o.strictPass);
      const answeredBad = bad.filter((o) => o.status === 'ok');
      const detail = bad.map((o) => `repeat ${o.repeat}: ${o.status === 'ok' ? o.decision : o.status}: ${o.problems.join('; ')}`).join('\n');
      const first = (answeredBad[0] ?? bad[0])?.problems[0] ?? 'failed';
      const trace = c.traceId ? `\ntrace_id: ${c.traceId}` : '';
      if (answeredBad.length) {
        f++;
        body.push(`    <testcase ${attrs}><failure message="${xmlEscape(first)}" type="${c.kind}">${xmlEscape(detail + trace)}</failure></testcase>`);
      } else {
        e++;
        body.push(`    <testcase ${attrs}><error message="${xmlEscape(first)}" type="coverage">${xmlEscape(detail + trace)}</error></testcase>`);
      }
    }
    for (const s of report.suite.skipped) {
      body.push(`    <testcase classname="${xmlEscape(`${report.suite.name}.${m.key}`)}" name="${xmlEscape(s.id)}" time="0.000"><skipped message="waiting for review"/></testcase>`);
    }
    const n = m.cases.length + report.suite.skipped.length;
    tests += n;
    failures += f;
    errors += e;
    skipped += report.suite.skipped.length;
    suites.push(
      `  <testsuite name="${xmlEscape(m.key)}" tests="${n}" failures="${f}" errors="${e}" skipped="${report.suite.skipped.length}" time="${secs(timeMs)}">`,
      ...body,
      '  </testsuite>',
    );
  }
  out.push(`<testsuites name="${xmlEscape(`toolwatch eval ${report.suite.name}`)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}">`);
  out.push(...suites, '</testsuites>', '');
  return out.join('\n');
}
