/** Splits a prompt file into its <<<system>>> and <<<user>>> parts. */
export function parseTemplate(version, text) {
    const m = /<<<system>>>\s*\n([\s\S]*?)\n<<<user>>>\s*\n([\s\S]*)$/.exec(text);
    if (!m)
        throw new Error(`prompt ${version}: expected a <<<system>>> part followed by a <<<user>>> part`);
    return { version, system: m[1].trim(), user: m[2].trim() };
}
/** Long trajectories keep their beginning and end; the judge is told what was left out. */
const HEAD_STEPS = 100;
const TAIL_STEPS = 50;
/** Every free-text field of a trajectory through the redactor (fields first, then text). */
export function redactTrajectory(t, r) {
    const opt = (s, f) => (s === undefined ? undefined : f(s));
    const steps = t.steps.map((s) => s.kind === 'model'
        ? {
            ...s,
            ...(s.userMessage !== undefined ? { userMessage: r.text(s.userMessage) } : {}),
            ...(s.outputText !== undefined ? { outputText: r.text(s.outputText) } : {}),
            ...(s.error !== undefined ? { error: r.text(s.error) } : {}),
            offered: undefined,
            calls: s.calls.map((c) => ({
                ...c,
                name: r.text(c.name),
                ...(c.arguments !== undefined ? { arguments: r.jsonText(c.arguments) } : {}),
            })),
        }
        : {
            ...s,
            name: r.text(s.name),
            ...(s.arguments !== undefined ? { arguments: r.jsonText(s.arguments) } : {}),
            ...(s.result !== undefined ? { result: r.jsonText(s.result) } : {}),
            ...(s.errorType !== undefined ? { errorType: r.text(s.errorType) } : {}),
        });
    const task = opt(t.task, r.text);
    const finalAnswer = opt(t.finalAnswer, r.text);
    const { task: _t, finalAnswer: _f, ...rest } = t;
    return {
        ...rest,
        ...(task !== undefined ? { task } : {}),
        ...(finalAnswer !== undefined ? { finalAnswer } : {}),
        tools: t.tools.map((d) => ({
            name: r.text(d.name),
            ...(d.description !== undefined ? { description: r.text(d.description) } : {}),
            ...(d.parameters !== undefined ? { parameters: r.strings(d.parameters) } : {}),
        })),
        steps,
    };
}
export function renderTools(t) {
    if (t.tools.length === 0)
        return '(no tool definitions were captured)';
    return t.tools
        .map((d) => `- ${d.name}: ${d.description ?? '(no description)'}\n  parameters: ${d.parameters === undefined ? '(no schema)' : JSON.stringify(d.parameters)}`)
        .join('\n');
}
function renderStep(s, n) {
    if (s.kind === 'tool') {
        const head = `${n}. TOOL ${s.name}${s.callId ? ` (call ${s.callId})` : ''} arguments: ${s.arguments ?? '(not captured)'}`;
        const outcome = s.outcome && s.outcome !== 'valid' ? ` [structural check: ${s.outcome}]` : '';
        const tail = s.status === 'error'
            ? `   → ERROR${s.errorType ? ` ${s.errorType}` : ''}${s.result !== undefined ? `: ${s.result}` : ''}`
            : `   → result: ${s.result ?? '(not captured)'}`;
        return `${head}${outcome}\n${tail}`;
    }
    const lines = [`${n}. MODEL${s.model ? ` ${s.model}` : ''}${s.error ? ` (failed: ${s.error})` : ''}`];
    if (s.outputText)
        lines.push(`   says: ${s.outputText}`);
    for (const c of s.calls) {
        const outcome = c.outcome && c.outcome !== 'valid' ? ` [structural check: ${c.outcome}]` : '';
        lines.push(`   proposes ${c.name}${c.callId ? ` (call ${c.callId})` : ''} arguments: ${c.arguments ?? '(not captured)'}${outcome}`);
    }
    if (!s.outputText && s.calls.length === 0)
        lines.push('   (no text or calls captured)');
    return lines.join('\n');
}
export function renderSteps(t) {
    if (t.steps.length === 0)
        return '(no steps were captured)';
    const all = t.steps.map((s, i) => renderStep(s, i + 1));
    if (all.length <= HEAD_STEPS + TAIL_STEPS)
        return all.join('\n');
    const skipped = all.length - HEAD_STEPS - TAIL_STEPS;
    return [...all.slice(0, HEAD_STEPS), `… ${skipped} steps omitted for length …`, ...all.slice(-TAIL_STEPS)].join('\n');
}
/** The chat messages for one (already redacted) trajectory. */
export function buildMessages(tpl, t) {
    const values = {
        task: t.task ?? '(the user message was not captured)',
        tools: renderTools(t),
        trajectory: renderSteps(t),
        end_state: t.finalAnswer ?? '(no final answer was captured)',
    };
    // One pass, so text inside a value that looks like {{task}} is never expanded.
    const user = tpl.user.replace(/\{\{(task|tools|trajectory|end_state)\}\}/g, (_, k) => values[k]);
    return [
        { role: 'system', content: tpl.system },
        { role: 'user', content: user },
    ];
}
//# sourceMappingURL=prompt.js.map