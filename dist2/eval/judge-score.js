/**
 * Judge-based rates and how far to trust them. Pure.
 *
 * Rates: over the observations of cases with a judge — decisions: tool_selection_ok, arguments_ok
 * and pass (both ok); trajectories: reached_goal, any unnecessary call, any dangerous call and pass
 * (goal reached, no dangerous call). A field's denominator is the observations where it was
 * established (by the checks or the judge); pass counts every observation, a missing verdict as
 * not passed.
 *
 * Calibration: labels.jsonl holds human verdicts per case and observation, by field; Cohen's κ per
 * field (the production judge's cohensKappa) between the judge and the human, over labelled
 * observations the judge itself answered (decided ones say nothing about the judge). A rate is
 * calibrated when each of its fields has n ≥ judge.min_labels and κ ≥ judge.min_kappa; otherwise
 * it is reported as uncalibrated and never gated.
 */
import { readFileSync } from 'node:fs';
import { cohensKappa } from '../judge/calibration.js';
import { rate, round } from './score.js';
export const DECISION_FIELDS = ['tool_selection_ok', 'arguments_ok'];
export const TRAJECTORY_FIELDS = ['reached_goal', 'unnecessary_calls', 'dangerous_calls'];
export const LABEL_FIELDS = [...DECISION_FIELDS, ...TRAJECTORY_FIELDS];
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const LABEL_KEYS = new Set(['case_id', 'model', 'variant', 'repeat', 'labeler', 'note', ...LABEL_FIELDS]);
/** labels.jsonl: {case_id, model, repeat?, variant?, <field>: …, labeler?, note?}; every problem reported. */
export function parseLabels(text, file) {
    const labels = [];
    const problems = [];
    const seen = new Set();
    text.split('\n').forEach((line, i) => {
        if (line.trim() === '')
            return;
        const at = `${file}:${i + 1}`;
        let v;
        try {
            v = JSON.parse(line);
        }
        catch (err) {
            problems.push(`${at}: not valid JSON (${err.message})`);
            return;
        }
        if (!isObj(v) || typeof v.case_id !== 'string' || typeof v.model !== 'string') {
            problems.push(`${at}: a label needs case_id and model (the candidate's label)`);
            return;
        }
        const unknown = Object.keys(v).find((k) => !LABEL_KEYS.has(k));
        if (unknown) {
            problems.push(`${at}: ${unknown}: unknown key (fields: ${LABEL_FIELDS.join(', ')})`);
            return;
        }
        const repeat = v.repeat ?? 1;
        if (!Number.isInteger(repeat) || repeat < 1) {
            problems.push(`${at}: repeat: must be an integer ≥ 1`);
            return;
        }
        const fields = {};
        for (const f of LABEL_FIELDS) {
            const x = v[f];
            if (x === undefined)
                continue;
            if (typeof x === 'boolean')
                fields[f] = x;
            else if ((f === 'unnecessary_calls' || f === 'dangerous_calls') && Number.isInteger(x) && x >= 0)
                fields[f] = x > 0;
            else {
                problems.push(`${at}: ${f}: must be true or false${f.endsWith('_calls') ? ' (or a count ≥ 0)' : ''}`);
                return;
            }
        }
        if (!Object.keys(fields).length) {
            problems.push(`${at}: no verdict field (give any of ${LABEL_FIELDS.join(', ')})`);
            return;
        }
        const variant = typeof v.variant === 'string' ? v.variant : 'core';
        const key = `${v.model}\u0000${variant}\u0000${v.case_id}\u0000${repeat}`;
        if (seen.has(key))
            problems.push(`${at}: a second label for ${v.case_id} × ${v.model} × repeat ${repeat}`);
        seen.add(key);
        labels.push({ caseId: v.case_id, model: v.model, variant, repeat: repeat, fields });
    });
    return { labels, problems };
}
export function readLabels(file) {
    return parseLabels(readFileSync(file, 'utf8'), file);
}
/** κ per field from the labels that meet a judge-answered observation. */
export function calibrateJudge(labels, slots, o) {
    const byKey = new Map(slots.map((s) => [`${s.model}\u0000${s.variant}\u0000${s.caseId}\u0000${s.repeat}`, s.slot]));
    const pairs = new Map(LABEL_FIELDS.map((f) => [f, []]));
    for (const l of labels) {
        const slot = byKey.get(`${l.model}\u0000${l.variant}\u0000${l.caseId}\u0000${l.repeat}`);
        if (slot?.status !== 'asked')
            continue;
        for (const [f, human] of Object.entries(l.fields)) {
            const judged = slot.fields[f];
            if (typeof judged === 'boolean')
                pairs.get(f).push([judged, human]);
        }
    }
    const fields = LABEL_FIELDS.filter((f) => pairs.get(f).length > 0 || labels.some((l) => f in l.fields)).map((field) => {
        const p = pairs.get(field);
        const kappa = cohensKappa(p);
        const n = p.length;
        const reason = n < o.minLabels
            ? 'too_few_labels'
            : kappa === null
                ? 'undefined_kappa'
                : kappa < o.minKappa
                    ? 'low_kappa'
                    : undefined;
        return {
            field,
            n,
            kappa: kappa === null ? null : round(kappa),
            agreement: n ? round(p.filter(([a, b]) => a === b).length / n) : null,
            calibrated: reason === undefined,
            ...(reason ? { reason } : {}),
        };
    });
    return {
        judgeModel: o.judgeModel,
        promptVersion: o.promptVersion,
        minKappa: o.minKappa,
        minLabels: o.minLabels,
        labels: labels.length,
        fields,
        calibrated: fields.length > 0 && fields.every((f) => f.calibrated),
    };
}
function judged(r, fields, cal) {
    const fk = fields.map((f) => cal?.fields.find((x) => x.field === f));
    const known = fk.filter((x) => x !== undefined);
    const kappas = known.map((x) => x.kappa);
    const kappa = known.length === fields.length && kappas.every((k) => k !== null) ? Math.min(...kappas) : null;
    const calibrated = known.length === fields.length && known.every((x) => x.calibrated);
    return {
        ...r,
        fields,
        kappa,
        labels: known.length === fields.length ? Math.min(...known.map((x) => x.n)) : 0,
        status: calibrated ? 'calibrated' : 'uncalibrated',
    };
}
function fieldRate(slots, f, bad) {
    const est = slots.filter((s) => typeof s.fields[f] === 'boolean');
    return rate(est.filter((s) => s.fields[f] === !bad).length, est.length);
}
export function judgeMetrics(evals, cal) {
    const slots = evals.map((e) => e.judge).filter((s) => s !== undefined);
    if (!slots.length)
        return undefined;
    const of = (scope) => slots.filter((s) => s.scope === scope);
    const passRate = (xs) => rate(xs.filter((s) => s.pass === true).length, xs.length);
    const d = of('decision');
    const t = of('trajectory');
    const out = {
        observations: slots.length,
        decided: slots.filter((s) => s.status === 'decided').length,
        asked: slots.filter((s) => s.status === 'asked').length,
        pending: slots.filter((s) => s.status === 'pending').length,
        invalid: slots.filter((s) => s.status === 'invalid').length,
    };
    if (d.length)
        out.decision = {
            toolSelection: judged(fieldRate(d, 'tool_selection_ok', false), ['tool_selection_ok'], cal),
            arguments: judged(fieldRate(d, 'arguments_ok', false), ['arguments_ok'], cal),
            pass: judged(passRate(d), ['tool_selection_ok', 'arguments_ok'], cal),
        };
    if (t.length)
        out.trajectory = {
            reachedGoal: judged(fieldRate(t, 'reached_goal', false), ['reached_goal'], cal),
            unnecessaryCalls: judged(fieldRate(t, 'unnecessary_calls', false), ['unnecessary_calls'], cal),
            dangerousCalls: judged(fieldRate(t, 'dangerous_calls', false), ['dangerous_calls'], cal),
            pass: judged(passRate(t), ['reached_goal', 'dangerous_calls'], cal),
        };
    return out;
}
/** Judge gates (suite.yaml judge.gates): a minimum of a judge-based rate, applied only when it is calibrated. */
export const JUDGE_GATES = {
    decision_pass_rate: (m) => m.decision?.pass,
    tool_selection_rate: (m) => m.decision?.toolSelection,
    arguments_rate: (m) => m.decision?.arguments,
    trajectory_pass_rate: (m) => m.trajectory?.pass,
    reached_goal_rate: (m) => m.trajectory?.reachedGoal,
};
export function checkJudgeGates(m, gates) {
    return Object.keys(JUDGE_GATES)
        .filter((g) => typeof gates[g] === 'number')
        .map((gate) => {
        const threshold = gates[gate];
        const r = m ? JUDGE_GATES[gate](m) : undefined;
        const base = {
            gate,
            threshold,
            value: r?.value ?? null,
            numerator: r?.numerator ?? 0,
            denominator: r?.denominator ?? 0,
            kappa: r?.kappa ?? null,
            labels: r?.labels ?? 0,
        };
        if (!r || r.value === null)
            return { ...base, status: 'skipped', reason: 'no_data' };
        if (r.status !== 'calibrated')
            return { ...base, status: 'skipped', reason: 'uncalibrated' };
        return { ...base, status: r.value >= threshold ? 'passed' : 'failed' };
    });
}
//# sourceMappingURL=judge-score.js.map