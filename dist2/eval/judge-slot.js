/**
 * The judge's part of one evaluated observation: what the deterministic checks settle before a
 * judge is asked (a provider error; on a single decision, a call the production checker fails; a
 * passing reference check), and the judge's verdict for the rest. Pure: the verdict comes from
 * the lookup in the context (judge-run.ts), never from here.
 */
import { isFailure } from '../model.js';
const DECISION_FIELDS = ['tool_selection_ok', 'arguments_ok'];
const TRAJECTORY_FIELDS = ['reached_goal', 'unnecessary_calls', 'dangerous_calls'];
export function decided(scope, pass, fields) {
    const all = Object.fromEntries((scope === 'decision' ? DECISION_FIELDS : TRAJECTORY_FIELDS).map((f) => [f, null]));
    return { scope, status: 'decided', pass, fields: { ...all, ...fields } };
}
/**
 * The judge's part of one observation: what the deterministic checks settle first (a provider
 * error; on a single decision, a call the production checker fails; a passing reference check),
 * the judge's verdict for the rest.
 */
export function judgeSlot(c, obs, ctx, checked, refPass) {
    const firstCalls = checked[0] ?? [];
    const j = c.judge;
    if (!j)
        return undefined;
    const s = j.scope;
    if (obs.status !== 'ok' || obs.turns.length === 0)
        return decided(s, false, s === 'decision' ? { tool_selection_ok: false, arguments_ok: false } : { reached_goal: false });
    if (s === 'decision') {
        const broken = firstCalls.filter((x) => isFailure(x.outcome));
        if (broken.length)
            return decided(s, false, {
                tool_selection_ok: broken.some((x) => x.outcome === 'UnknownName') ? false : null,
                arguments_ok: false,
            });
    }
    if (refPass === true)
        return decided(s, true, s === 'decision' ? { tool_selection_ok: true, arguments_ok: true } : { reached_goal: true });
    // A replayed failure with no judge to ask: the checker found nothing wrong, so it passes.
    if (!ctx.judge && j.replay)
        return decided(s, true, {});
    const r = ctx.judge?.({ c, obs, scope: s, offered: ctx.offered, checked });
    if (!r)
        return { scope: s, status: 'pending', pass: null, fields: {} };
    if (r.status !== 'asked')
        return { scope: s, status: r.status, pass: null, fields: {}, hash: r.hash };
    return { scope: s, status: 'asked', pass: r.pass, fields: r.fields, reasoning: r.reasoning, hash: r.hash };
}
export function judgeProblems(s) {
    if (s.status === 'pending')
        return ['judge: no verdict (no judge configured, or it did not answer)'];
    if (s.status === 'invalid')
        return ['judge: the answer was not a valid verdict'];
    if (s.pass)
        return [];
    // Trajectory counts are read as "any": unnecessary_calls / dangerous_calls true = at least one.
    const failed = Object.entries(s.fields)
        .filter(([k, v]) => (k === 'unnecessary_calls' || k === 'dangerous_calls' ? v === true : v === false))
        .map(([k]) => k);
    return [`judge (${s.status}): ${failed.join(', ') || 'failed'}${s.reasoning ? ` — ${s.reasoning}` : ''}`];
}
//# sourceMappingURL=judge-slot.js.map