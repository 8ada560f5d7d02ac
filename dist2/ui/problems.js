import { fmtDuration, fmtInt, fmtTime } from './format.js';
import { href, html } from './html.js';
import { signatureLine } from './problem-words.js';
const HOUR = 3_600_000;
/** The sparkline's hours. */
export const SPARK_HOURS = 24;
export const problemHref = (p, window) => href(`/problems/${encodeURIComponent(p.id)}`, { service: p.service, window });
export const toolHref = (service, tool, window) => href(`/tools/${encodeURIComponent(service)}/${encodeURIComponent(tool)}`, { window });
/** The status as a badge; a problem first seen in the window is marked new. */
export function statusBadge(status, isNew = false) {
    const label = isNew && status === 'open' ? 'new' : status;
    return html `<span class="badge p-${label}">${label}</span>`;
}
/** Counts per hour as bars (one per hour, oldest first), the numbers in data-counts. */
export function hourSpark(hours, nowMs, label) {
    const last = nowMs - (nowMs % HOUR);
    const by = new Map(hours.map((h) => [h.hour, h.count]));
    const counts = Array.from({ length: SPARK_HOURS }, (_, i) => by.get(last - (SPARK_HOURS - 1 - i) * HOUR) ?? 0);
    const max = Math.max(1, ...counts);
    const w = 96;
    const h = 22;
    const step = w / SPARK_HOURS;
    const bars = counts.map((v, i) => v > 0
        ? html `<rect class="c-failed" x="${(i * step + step * 0.1).toFixed(1)}" y="${(h - (h * v) / max).toFixed(1)}" width="${(step * 0.8).toFixed(1)}" height="${((h * v) / max).toFixed(1)}"></rect>`
        : '');
    const total = counts.reduce((a, b) => a + b, 0);
    return html `<svg class="spark" data-chart="problem" data-counts="${counts.join(',')}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${label}: ${total} in the last ${SPARK_HOURS} h"><title>${label}: ${total} in the last ${SPARK_HOURS} h · peak ${max}/h</title><line class="base" x1="0" x2="${w}" y1="${h - 0.5}" y2="${h - 0.5}"></line>${bars}</svg>`;
}
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * What a problem costs, when the store says: the repair turns' tokens and wall time after the failed
 * calls (and money with a price table) — `cost` as GET /api/problems gives it. Undefined when there
 * is nothing to show (no cost measured, or no repair yet).
 */
export function costText(p) {
    const c = p.cost;
    if (!isObj(c))
        return undefined;
    const n = (k) => (typeof c[k] === 'number' ? c[k] : undefined);
    const out = [];
    const tokens = (n('inputTokens') ?? 0) + (n('outputTokens') ?? 0) || n('tokens');
    if (tokens)
        out.push(`${fmtInt(tokens)} tokens`);
    const wall = n('durationMs') ?? n('wallMs');
    if (wall)
        out.push(fmtDuration(wall));
    const usd = n('usd');
    if (usd !== undefined)
        out.push(`$${usd < 0.01 && usd > 0 ? usd.toFixed(4) : usd.toFixed(2)}`);
    const repairs = n('repairs');
    if (repairs)
        out.push(`${fmtInt(repairs)} repair${repairs === 1 ? '' : 's'}`);
    return out.length ? out.join(' · ') : undefined;
}
/** The change named as the likely cause, when attribution found one (`likely_change`): its sentence, or kind and versions. */
export function likelyChangeText(p) {
    const l = p.likely_change ?? p.likelyChange;
    if (typeof l === 'string')
        return l;
    if (!isObj(l))
        return undefined;
    for (const k of ['text', 'summary', 'sentence'])
        if (typeof l[k] === 'string')
            return l[k];
    const change = isObj(l.change) ? l.change : l;
    const kind = typeof change.kind === 'string' ? change.kind : 'change';
    const tool = typeof change.tool === 'string' ? ` of ${change.tool}` : '';
    const at = typeof change.time === 'string' ? ` at ${change.time.slice(11, 16)}` : '';
    const from = typeof change.from === 'string' ? change.from : '';
    const to = typeof change.to === 'string' ? change.to : '';
    return `${kind}${tool}${at}${from || to ? ` (${from} → ${to})` : ''}`;
}
function row(d, p, withCost, withCause) {
    const models = p.models.map((m) => html `<div><code>${m.model || '(none)'}</code> <span class="muted">${fmtInt(m.count)}</span></div>`);
    const tool = p.outcome !== 'UnknownName' && p.id !== '_other'
        ? html `<div class="muted"><a href="${toolHref(p.service, p.tool, d.window)}">tool view</a></div>`
        : '';
    return html `<tr class="pr-${p.status}${p.isNew ? ' pr-new' : ''}" data-filter="${`${p.service} ${p.tool} ${p.outcome} ${p.status}`.toLowerCase()}"
 data-problem="${p.id}" data-service="${p.service}" data-status="${p.status}" data-new="${p.isNew}" data-occurrences="${p.occurrences}" data-recent="${p.recent}">
  <td>${statusBadge(p.status, p.isNew)}</td>
  <td class="sig"><a href="${problemHref(p, d.window)}">${signatureLine(p)}</a>${tool}</td>
  <td>${p.service}</td>
  <td><span class="badge o-${p.outcome}">${p.outcome}</span></td>
  <td class="n">${fmtInt(p.recent)}</td>
  <td class="n">${fmtInt(p.occurrences)}</td>
  <td class="trend">${hourSpark(p.hours, d.nowMs, p.tool)}</td>
  <td class="nowrap">${models.length ? models : html `<span class="muted">—</span>`}</td>
  <td>${fmtTime(p.firstSeenMs)}</td>
  <td>${fmtTime(p.lastSeenMs)}</td>
  ${withCost ? html `<td class="n">${costText(p) ?? '—'}</td>` : ''}
  ${withCause ? html `<td>${likelyChangeText(p) ?? html `<span class="muted">none found</span>`}</td>` : ''}
</tr>`;
}
export function problemsSection(d) {
    const ps = d.problems;
    const withCost = ps.some((p) => costText(p) !== undefined);
    const withCause = ps.some((p) => likelyChangeText(p) !== undefined);
    const open = ps.filter((p) => p.status === 'open' || p.status === 'regressed').length;
    const fresh = ps.filter((p) => p.isNew || p.status === 'regressed').length;
    const api = href('/api/problems', { since: d.window, service: d.service });
    const body = ps.length
        ? html `<div class="scroll"><table>
<thead><tr><th>status</th><th>problem</th><th>service</th><th>outcome</th><th class="n">last ${d.window}</th><th class="n">all</th><th>last ${SPARK_HOURS} h</th><th>models</th><th>first seen</th><th>last seen</th>${withCost ? html `<th class="n">cost</th>` : ''}${withCause ? html `<th>likely change</th>` : ''}</tr></thead>
<tbody id="problems">${ps.map((p) => row(d, p, withCost, withCause))}</tbody></table></div>`
        : html `<div class="empty">No problems in the last ${d.window}${d.service ? html ` for <b>${d.service}</b>` : ''}: no failed call or execution.</div>`;
    return html `<section id="problems-section"><h2>Problems <small>last ${d.window} · ${fmtInt(open)} open or regressed · ${fmtInt(fresh)} new or regressed, listed first</small>
  <span class="right"><a href="${api}">/api/problems</a> · <a href="#failures-section">raw failures</a></span></h2>${body}</section>`;
}
//# sourceMappingURL=problems.js.map