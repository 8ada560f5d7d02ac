import { isoTime } from '../util/iso-time.js';
import { html } from './html.js';
/** Error rates from here on are highlighted (amber, red). */
export const WARN_RATE = 0.05;
export const HIGH_RATE = 0.2;
export const fmtInt = (n) => n.toLocaleString('en-US');
export function fmtRate(r) {
    if (r === null)
        return '—';
    if (r > 0 && r < 0.001)
        return '<0.1%';
    return `${(r * 100).toFixed(r >= 0.995 || r === 0 ? 0 : 1)}%`;
}
export const rateClass = (r) => r === null ? '' : r >= HIGH_RATE ? 'r-high' : r >= WARN_RATE ? 'r-warn' : 'r-ok';
/** '05-14 09:03:27' (UTC); the full time is in the title. */
export function fmtTime(ms) {
    const iso = isoTime(ms);
    if (iso === null)
        return html `<span class="nowrap mono">—</span>`;
    return html `<span class="nowrap mono" title="${iso}">${iso.slice(5, 10)} ${iso.slice(11, 19)}</span>`;
}
export function fmtIso(iso) {
    return iso ? fmtTime(Date.parse(iso)) : '—';
}
export function fmtNum(v) {
    return Number.isInteger(v) ? fmtInt(v) : v < 1 && v > -1 ? v.toFixed(3) : v.toFixed(2);
}
/** '4.2 s', '3 min', '1.5 h' for a duration in ms. */
export function fmtDuration(ms) {
    if (ms < 1000)
        return `${Math.round(ms)} ms`;
    if (ms < 60_000)
        return `${(ms / 1000).toFixed(1)} s`;
    if (ms < 3_600_000)
        return `${(ms / 60_000).toFixed(1)} min`;
    return `${(ms / 3_600_000).toFixed(1)} h`;
}
/** The outcomes the checker gives a call, badge-coloured; other strings (execution problems) plain. */
export const outcomeBadge = (o) => html `<span class="badge o-${o}">${o}</span>`;
//# sourceMappingURL=format.js.map