/**
 * Which change, if any, is the likely cause of a failure that began at some time — pure: the change
 * events and the counts in, the comparison of each candidate out (src/queries/attribution.ts reads
 * the counts; the problem view, GET /api/problems/:id and GET /api/changes print it).
 *
 * A candidate is a change event of the subject's service within `windowMs` before the failure began
 * (a change after it began is no cause of it): a `tool_definition` change of the subject's own tool,
 * or any `tool_set`, `prompt`, `model` or `provider` change. Each is judged on its own pair of windows
 * of the same length, both bounded by the service's neighbouring changes, so a harmless earlier change
 * is never blamed for what a later one did, nor a later one for what an earlier one did:
 *   before = [m − L, m), after = [m + 1 min, m + 1 min + L), m = the change's minute
 * (the change's own minute holds calls of both values and is left out), L = the shortest of
 * `windowMs`, the time to the previous and to the next change of the service (changes in one minute
 * are one deploy and do not bound each other) and the time to now — whole minutes, at least one.
 * The rate compared is the subject's: its outcomes over its tool's checked calls (the service's when
 * it names no tool), with Fisher's exact test (the z-test above 100,000 calls: stats.ts).
 * A candidate is named when the rate rose with p below `pValue`; of those the smallest p wins, and
 * among equal p (changes of one deploy, judged on the same windows) the most specific kind. This is
 * a correlation in time, not proof.
 */
import { compareRates, formatP } from './stats.js';
const MINUTE = 60_000;
/** Most specific first: a tie between changes of one deploy goes to the one nearest the failure. */
const SPECIFICITY = { tool_definition: 0, tool_set: 1, provider: 2, model: 3, prompt: 4 };
const minuteOf = (ms) => Math.floor(ms / MINUTE) * MINUTE;
/**
 * The candidates for a subject. `events`: the service's change events around the time (newest or
 * oldest first, any order), at least those within windowMs before beganMs and the next one after it.
 */
export function candidatesFor(subject, events, opts) {
    const own = events.filter((e) => e.service === subject.service);
    const minutes = [...new Set(own.map((e) => minuteOf(e.timeMs)))].sort((a, b) => a - b);
    const out = [];
    for (const e of own) {
        // The failure began in the change's minute at the earliest (it may have begun with it).
        if (e.timeMs > subject.beganMs + MINUTE || e.timeMs < subject.beganMs - opts.windowMs)
            continue;
        if (e.kind === 'tool_definition' && e.tool !== subject.tool)
            continue;
        const m = minuteOf(e.timeMs);
        const i = minutes.indexOf(m);
        const prev = i > 0 ? minutes[i - 1] : Number.NEGATIVE_INFINITY;
        const next = i < minutes.length - 1 ? minutes[i + 1] : Number.POSITIVE_INFINITY;
        const afterStart = m + MINUTE;
        const span = Math.min(opts.windowMs, m - prev, next - afterStart, minuteOf(opts.nowMs) + MINUTE - afterStart);
        const length = Math.max(MINUTE, Math.floor(span / MINUTE) * MINUTE);
        out.push({
            event: e,
            windows: {
                before: { sinceMs: m - length, untilMs: m },
                after: { sinceMs: afterStart, untilMs: afterStart + length },
            },
        });
    }
    return out.sort((a, b) => b.event.timeMs - a.event.timeMs || b.event.id - a.event.id);
}
export function judge(candidates, pValue) {
    const judged = candidates.map((c) => {
        const cmp = compareRates(c.counts.before, c.counts.after);
        const failures = c.counts.after.failures;
        return {
            event: c.event,
            windows: c.windows,
            before: { ...c.counts.before, rate: cmp.before },
            after: { ...c.counts.after, rate: cmp.after },
            test: cmp.test,
            p: cmp.p,
            pText: formatP(cmp.p),
            shareOnNew: c.counts.afterOnNew === undefined || failures === 0 ? null : c.counts.afterOnNew / failures,
            significant: cmp.after > cmp.before && cmp.p < pValue,
        };
    });
    const named = judged
        .filter((j) => j.significant)
        .sort((a, b) => a.p - b.p ||
        (SPECIFICITY[a.event.kind] ?? 9) - (SPECIFICITY[b.event.kind] ?? 9) ||
        b.event.timeMs - a.event.timeMs);
    return { candidates: judged, likely: named[0] ?? null };
}
const pct = (x) => `${(x * 100).toFixed(1)} %`;
/** One sentence for people: what changed, the rates before and after with n and p, the share on the new value. */
export function describeAttribution(subject, j, what = defaultWhat(j.event)) {
    const on = `${subject.outcomes.join('/')}${subject.tool ? ` on ${subject.tool}` : ''}`;
    const share = j.shareOnNew === null ? '' : `; ${pct(j.shareOnNew)} of the failures after it are on ${short(j.event.to)}`;
    return (`${what} at ${new Date(j.event.timeMs).toISOString()} (${short(j.event.from)} → ${short(j.event.to)}); ` +
        `${on} ${pct(j.before.rate)} before → ${pct(j.after.rate)} after ` +
        `(n ${j.before.calls} / ${j.after.calls}, ${j.pText})${share}`);
}
const short = (v) => (v.length > 40 ? `${v.slice(0, 39)}…` : v);
function defaultWhat(e) {
    switch (e.kind) {
        case 'tool_definition':
            return `${e.tool}'s definition changed`;
        case 'tool_set':
            return 'the tools offered changed';
        case 'prompt':
            return 'the system prompt changed';
        case 'model':
            return 'the model changed';
        case 'provider':
            return 'the provider changed';
    }
}
/** "No change found" said plainly, with how far back it looked. */
export function noChangeText(windowMs, candidates) {
    const h = windowMs / 3_600_000;
    const span = Number.isInteger(h) ? `${h} h` : `${Math.round(windowMs / MINUTE)} min`;
    return candidates === 0
        ? `no change of this service in the ${span} before it began`
        : `none of the ${candidates} changes in the ${span} before it began moved this rate significantly`;
}
//# sourceMappingURL=attribute.js.map