export const plain = { text: (s) => s, code: (s) => `\`${s}\`` };
export function renderWords(w, r) {
    return w.map((s) => ('code' in s ? r.code(s.code) : r.text(s.text))).join('');
}
/** "37 calls in 10 min" — the calls between first and last seen. */
export function callsText(f) {
    const span = Math.max(1, Math.ceil((f.lastSeenMs - f.firstSeenMs) / 60_000));
    return `${f.occurrences} call${f.occurrences === 1 ? '' : 's'} in ${minutes(span)}`;
}
/** "gpt-4.1 only", or "on gpt-4.1 (30), gpt-4o (7) and 2 more". */
export function modelsText(f, r) {
    if (f.models.length === 0)
        return r.text('no model named');
    if (f.models.length === 1 && f.moreModels === 0)
        return `${r.code(f.models[0].model)}${r.text(' only')}`;
    const list = f.models.map((m) => `${r.code(m.model)}${r.text(` (${m.count})`)}`).join(r.text(', '));
    return `${r.text('on ')}${list}${f.moreModels ? r.text(` and ${f.moreModels} more`) : ''}`;
}
/** "first seen 10:02 UTC", or "seen again 14:30 UTC after it was resolved, first seen …". */
export function seenText(f, now) {
    const first = `first seen ${clock(f.firstSeenMs, now)}`;
    return f.transition === 'new' ? first : `seen again ${clock(f.sinceMs, now)} after it was resolved, ${first}`;
}
/** The whole line. */
export function problemLine(f, now, r = plain) {
    return (`${renderWords(f.what, r)}${r.text(` — ${callsText(f)}, `)}${modelsText(f, r)}` + r.text(`, ${seenText(f, now)}`));
}
function minutes(min) {
    if (min < 120)
        return `${min} min`;
    if (min < 48 * 60)
        return `${Math.round(min / 60)} h`;
    return `${Math.round(min / 1440)} days`;
}
/** HH:MM UTC on the day of `now`, else with the date. */
export function clock(ms, now) {
    const iso = new Date(ms).toISOString();
    const sameDay = iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
    return `${sameDay ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;
}
//# sourceMappingURL=problem-message.js.map