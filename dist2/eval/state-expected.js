import { replayReference } from './stateful.js';
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
export function readState(v) {
    const hasExpected = v.expected_state !== undefined;
    const hasRef = v.reference_trajectory !== undefined;
    if (!hasExpected && !hasRef)
        return undefined;
    if (hasExpected && hasRef)
        return { ok: false, error: 'give expected_state or reference_trajectory, not both' };
    if (v.initial_state === undefined)
        return { ok: false, error: 'expected_state / reference_trajectory need initial_state' };
    if (v.expected !== undefined || 'expected_tool' in v || v.expected_trajectory !== undefined)
        return {
            ok: false,
            error: 'expected_state is the expectation: not with expected, expected_tool or expected_trajectory',
        };
    if (v.judge !== undefined)
        return { ok: false, error: 'judge: not with expected_state' };
    const rest = { ...v };
    if (hasExpected)
        return { ok: true, value: { expected: { kind: 'state', expected: v.expected_state }, rest } };
    if (!Array.isArray(v.reference_trajectory))
        return { ok: false, error: 'reference_trajectory: must be a list of calls' };
    const reference = [];
    for (const [i, c] of v.reference_trajectory.entries()) {
        if (!isObj(c) || typeof c.name !== 'string' || !c.name)
            return { ok: false, error: `reference_trajectory[${i}]: needs a tool name` };
        const args = c.arguments ?? {};
        if (!isObj(args))
            return { ok: false, error: `reference_trajectory[${i}].arguments: must be an object` };
        reference.push({ name: c.name, arguments: args });
    }
    return { ok: true, value: { expected: { kind: 'state', expected: undefined, reference }, rest } };
}
/** Cases with a state expectation need tools.mjs; a reference trajectory is replayed into the expected state here. */
export function stateProblems(cases, tools, file) {
    const problems = [];
    for (const c of cases) {
        if (c.initialState === undefined)
            continue;
        if (!tools) {
            problems.push(`${file}:${c.line}: case ${JSON.stringify(c.id)}: initial_state needs the suite's tools.mjs`);
            continue;
        }
        const e = c.expected;
        if (e.kind === 'state' && e.reference) {
            try {
                c.expected = { ...e, expected: replayReference(tools, e.reference, c.initialState) };
            }
            catch (err) {
                problems.push(`${file}:${c.line}: case ${JSON.stringify(c.id)}: reference_trajectory: ${err.message}`);
            }
        }
    }
    return problems;
}
//# sourceMappingURL=state-expected.js.map