import { parseCases } from './cases.js';
import { evaluate } from './evaluate.js';
import { calibrateJudge, judgeMetrics, parseLabels } from './judge-score.js';
const obs = (o) => ({
    repeat: 1,
    status: 'ok',
    turns: [{ request: null, response: null, outcome: o, latencyMs: 1 }],
    latencyMs: 1,
    usage: { inputTokens: 1, outputTokens: 1 },
});
const call = (name, args) => ({
    kind: 'tool_calls',
    calls: [{ id: 'c1', name, arguments: args }],
});
export function judgeSelftest(tools, schemas, check) {
    const asked = [];
    // The stand-in judge: get_item is as right as get_stock for these questions.
    const judge = (q) => {
        asked.push(q.c.id);
        const first = q.checked[0]?.[0]?.name;
        const ok = first === 'get_stock' || first === 'get_item';
        return {
            status: 'asked',
            hash: q.c.id,
            fields: { tool_selection_ok: ok, arguments_ok: ok },
            pass: ok,
            reasoning: 'table',
        };
    };
    const ctx = { offered: tools, schemas, clarification: /[?？]/u, judge };
    const lines = [
        { id: 'j1', user: 'Is SKU-204 there?', expected: { kind: 'judge', rubric: 'stock or item lookup' } },
        { id: 'j2', user: 'Is SKU-204 there?', expected: { kind: 'judge', rubric: 'stock or item lookup' } },
        {
            id: 'j3',
            user: 'Is SKU-204 there?',
            expected: [{ name: 'get_stock', arguments: { sku: 'SKU-204' } }],
            judge: { rubric: 'either' },
        },
        {
            id: 'j4',
            user: 'Is SKU-204 there?',
            expected: [{ name: 'get_stock', arguments: { sku: 'SKU-204' } }],
            judge: { rubric: 'either' },
        },
    ];
    const answers = [
        call('get_item', '{"item_id":"SKU-204"}'), // judged right: no reference says otherwise
        call('delete_item', '{"sku":"SKU-204"}'), // UnknownName: settled by the checker, judge not asked
        call('get_stock', '{"sku":"SKU-204"}'), // the reference passes: judge not asked
        call('get_item', '{"item_id":"SKU-204"}'), // the reference fails, the judge says right
    ];
    const parsed = parseCases(lines.map((l) => JSON.stringify(l)).join('\n'), 'selftest', {
        tools,
        defaultMaxTurns: 4,
        schemas,
    });
    if (parsed.problems.length) {
        check('judge cases parse', parsed.problems);
        return;
    }
    const evals = parsed.cases.map((c, i) => evaluate(c, obs(answers[i]), ctx));
    const want = [
        ['j1', 'asked', true],
        ['j2', 'decided', false],
        ['j3', 'decided', true],
        ['j4', 'asked', true],
    ];
    for (const [i, [id, status, pass]] of want.entries()) {
        const s = evals[i].judge;
        check(`judge case ${id}: ${status}, pass ${pass}`, s?.status === status && s.pass === pass ? [] : [`got ${s?.status} ${s?.pass}`]);
    }
    check('judge asked only what the checks cannot answer (j1, j4)', asked.join(',') === 'j1,j4' ? [] : [`asked ${asked.join(',')}`]);
    const m = judgeMetrics(evals, undefined);
    const sel = m.decision.toolSelection;
    // j1 j3 j4 right; j2 UnknownName is a wrong selection: 3/4. Deterministic selection: j3 only, of j3 j4.
    check('judge selection rate 3/4, uncalibrated', sel.numerator === 3 && sel.denominator === 4 && sel.status === 'uncalibrated'
        ? []
        : [`got ${sel.numerator}/${sel.denominator} ${sel.status}`]);
    const det = evals.filter((e) => e.selectionPass !== null);
    check('deterministic selection beside it 1/2', det.length === 2 && det.filter((e) => e.selectionPass).length === 1 ? [] : ['differs']);
    // κ by hand: judge T T T T T F F F, human T T T F F F F T → p_o 5/8, p_e 1/2, κ 0.25.
    const J = [true, true, true, true, true, false, false, false];
    const H = [true, true, true, false, false, false, false, true];
    const labels = parseLabels(H.map((h, i) => JSON.stringify({ case_id: `k${i}`, model: 'm', tool_selection_ok: h })).join('\n'), 'l').labels;
    const slots = J.map((j, i) => ({
        model: 'm',
        variant: 'core',
        caseId: `k${i}`,
        repeat: 1,
        slot: { scope: 'decision', status: 'asked', pass: j, fields: { tool_selection_ok: j } },
    }));
    const cal = calibrateJudge(labels, slots, { judgeModel: 'j', promptVersion: 'v1', minKappa: 0.6, minLabels: 50 });
    const f = cal.fields[0];
    check("Cohen's κ of the judge against 8 labels = 0.25, uncalibrated", f?.kappa === 0.25 && f.n === 8 && !cal.calibrated ? [] : [`got κ ${f?.kappa} n ${f?.n}`]);
}
//# sourceMappingURL=selftest-judge.js.map