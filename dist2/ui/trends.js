import { DAY, HOUR } from '../queries/series.js';
import { callsChart, driftChart, OUTCOME_PARTS, pctText, sharesChart } from './charts.js';
import { html } from './html.js';
import { markerFilter, markerLines } from './markers.js';
/** Services drawn (most calls first); the others are one click away through the service filter. */
export const MAX_SERVICES = 12;
/** Models coloured apart per service; the rest share one colour. */
const MODEL_COLOURS = 8;
const stepName = (stepMs) => (stepMs >= DAY ? 'per day' : stepMs >= HOUR ? 'per hour' : 'per minute');
/** Change markers (GET /api/changes) over a chart: a service's, or every shown service's when undefined. */
const overlayOf = (changes, service) => {
    const mine = service === undefined ? changes : changes.filter((c) => c.service === service);
    return mine.length ? { overlay: (p) => markerLines(mine, p) } : {};
};
function serviceCards(t, changes) {
    const shown = t.services.slice(0, MAX_SERVICES);
    const more = t.services.length - shown.length;
    return html `<div class="charts">${shown.map((s) => {
        const name = s.key.service ?? '';
        return html `<figure class="chart-card" data-service="${name}"><figcaption><b>${name}</b><span>${s.sum.total.toLocaleString('en-US')} calls · ${s.sum.failed.toLocaleString('en-US')} failed · error rate ${pctText(s.sum.errorRate)}</span></figcaption>${callsChart(s, t.buckets, t.stepMs, { chart: 'service', label: `${name}: calls and error rate`, ...overlayOf(changes, name) })}</figure>`;
    })}</div>${more > 0 ? html `<div class="foot">${more} more service${more === 1 ? '' : 's'} with fewer calls: pick one with the service filter.</div>` : ''}`;
}
function legend(parts) {
    return html `<div class="legend">${parts.map((p) => html `<span><i class="sw ${p.cls}"></i>${p.key}</span>`)}</div>`;
}
function outcomeCard(t, changes) {
    const o = t.outcomes;
    if (!o)
        return '';
    return html `<figure class="chart-card wide" data-chart-card="outcomes"><figcaption><b>Outcome mix</b><span>share of calls by outcome, ${stepName(t.stepMs)}</span></figcaption>
${sharesChart(t.buckets, t.stepMs, OUTCOME_PARTS, (i, k) => o.points[i].counts[k], { chart: 'outcomes', label: 'outcome mix over time', ...overlayOf(changes) })}
${legend(OUTCOME_PARTS)}</figure>`;
}
function modelCards(t, changes) {
    const byService = new Map();
    for (const m of t.models)
        byService.set(m.key.service, [...(byService.get(m.key.service) ?? []), m]);
    const services = t.services.slice(0, MAX_SERVICES).map((s) => s.key.service);
    return html `${services.map((service) => {
        const models = byService.get(service) ?? [];
        const parts = models.map((m, i) => ({ key: m.key.model, cls: `m${Math.min(i, MODEL_COLOURS - 1)}` }));
        const modelMarks = t.modelChanges.filter((c) => c.service === service);
        // The model mix marks its model changes itself; the other kinds of change join them.
        const others = changes.filter((c) => c.kind !== 'model');
        const note = modelMarks.length
            ? html ` · model changed: ${modelMarks.map((c) => html `<b>${c.model}</b> from ${new Date(c.minute).toISOString().slice(11, 16)}`)}`
            : '';
        return html `<figure class="chart-card" data-chart-card="models" data-service="${service}"><figcaption><b>${service}</b><span>model mix${note}</span></figcaption>
${sharesChart(t.buckets, t.stepMs, parts, (i, k) => models.find((m) => m.key.model === k).points[i].total, { chart: 'models', label: `${service}: model mix over time`, markers: modelMarks, ...overlayOf(others, service) })}
${legend(parts)}</figure>`;
    })}`;
}
function driftCards(t) {
    if (t.drift.length === 0)
        return '';
    return html `${t.drift.map((d) => html `<h3>Tool choice drift <small>rule <code>${d.rule}</code> · last ${d.window} against the ${d.baseline} before · fires at JS distance ≥ ${d.minDistance} and p &lt; ${d.pValue}</small></h3>
<div class="charts">${d.services.length
        ? d.services.map((s) => html `<figure class="chart-card${s.active ? ' drifting' : ''}" data-chart-card="drift" data-rule="${d.rule}" data-service="${s.service}"${s.model !== undefined ? html ` data-model="${s.model}"` : ''}><figcaption><b>${s.service}</b>${s.model !== undefined ? html ` · <code>${s.model || '(no model)'}</code>` : ''}<span>${s.enough
            ? html `JS distance ${s.distance.toFixed(3)} · p ${s.pValue < 0.0001 ? s.pValue.toExponential(1) : s.pValue.toFixed(4)}${s.active ? html ` · <b class="hot">drifting</b>` : ''}`
            : html `not enough calls (${s.total} now, ${s.baselineTotal} in the baseline)`}</span></figcaption>${driftChart(s, `${s.service}${s.model !== undefined ? ` · ${s.model}` : ''}: tool shares, baseline against now`)}${legend([
            { key: `baseline (${s.baselineTotal})`, cls: 'd-before' },
            { key: `now (${s.total})`, cls: 'd-after' },
        ])}</figure>`)
        : html `<div class="empty">No calls in the rule's windows.</div>`}</div>`)}`;
}
export function trendsSection(d) {
    const t = d.trends;
    const filter = d.changes.length ? markerFilter() : '';
    const body = t.services.length
        ? html `<h3>Calls and error rate <small>bars: calls (failed part red) · line: error rate (right axis) · dashed: changes</small>${filter}</h3>${serviceCards(t, d.changes)}
<h3>Outcomes and models</h3><div class="charts">${outcomeCard(t, d.changes)}${modelCards(t, d.changes)}</div>${driftCards(t)}`
        : html `<div class="empty">No tool calls in the last ${d.window}${d.service ? html ` for <b>${d.service}</b>` : ''}.</div>${driftCards(t)}`;
    return html `<section id="trends-section"><h2>Trends <small>last ${d.window} · ${stepName(t.stepMs)} (UTC)</small></h2>${body}</section>`;
}
//# sourceMappingURL=trends.js.map