const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_RUBRIC = 8000;
function readRubric(v, where) {
    const r = isObj(v) ? v.rubric : undefined;
    if (!isObj(v) || typeof r !== 'string' || r.trim() === '')
        return { ok: false, error: `${where}: needs a rubric` };
    for (const k of Object.keys(v))
        if (k !== 'rubric' && k !== 'kind')
            return { ok: false, error: `${where}.${k}: unknown key` };
    if (r.length > MAX_RUBRIC)
        return { ok: false, error: `${where}.rubric: longer than ${MAX_RUBRIC} characters` };
    return { ok: true, value: r.trim() };
}
export function readCaseJudge(v) {
    const rest = { ...v };
    delete rest.judge;
    const after = v.judge;
    if (isObj(v.expected) && v.expected.kind === 'judge') {
        if (after !== undefined)
            return { ok: false, error: 'judge: not with expected.kind judge (give the rubric there)' };
        const rubric = readRubric(v.expected, 'expected');
        if (!rubric.ok)
            return rubric;
        delete rest.expected;
        return {
            ok: true,
            value: {
                expected: { kind: 'judge', scope: 'decision' },
                judge: { rubric: rubric.value, scope: 'decision' },
                rest,
            },
        };
    }
    if (isObj(v.expected_trajectory) && 'judge' in v.expected_trajectory) {
        if (after !== undefined)
            return { ok: false, error: 'judge: not with expected_trajectory.judge' };
        const { judge, ...traj } = v.expected_trajectory;
        const rubric = readRubric(judge, 'expected_trajectory.judge');
        if (!rubric.ok)
            return rubric;
        const j = { rubric: rubric.value, scope: 'trajectory' };
        if (traj.calls === undefined) {
            if (Object.keys(traj).length)
                return { ok: false, error: `expected_trajectory.${Object.keys(traj)[0]}: only with calls` };
            delete rest.expected_trajectory;
            return { ok: true, value: { expected: { kind: 'judge', scope: 'trajectory' }, judge: j, rest } };
        }
        rest.expected_trajectory = traj;
        return { ok: true, value: { judge: j, rest } };
    }
    if (after === undefined)
        return { ok: true, value: { rest } };
    const rubric = readRubric(after, 'judge');
    if (!rubric.ok)
        return rubric;
    const scope = v.expected_trajectory !== undefined ? 'trajectory' : 'decision';
    return { ok: true, value: { judge: { rubric: rubric.value, scope }, rest } };
}
//# sourceMappingURL=case-judge.js.map