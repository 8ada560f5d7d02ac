import { FAILURE_OUTCOMES, OUTCOMES } from '../model.js';
import { callsChart } from './charts.js';
import { fmtInt, fmtIso, fmtRate, fmtTime, rateClass } from './format.js';
import { href, html } from './html.js';
import { valueView } from './json-view.js';
import { documentShell, subHeader } from './layout.js';
import { changeSentence, markerFilter, markerLines } from './markers.js';
import { costText, hourSpark, likelyChangeText, problemHref, statusBadge } from './problems.js';
import { signatureLine } from './problem-words.js';
function cards(d) {
    const s = d.stats;
    const failed = s ? FAILURE_OUTCOMES.reduce((n, o) => n + s.counts[o], 0) : 0;
    const e = s?.executions;
    const execFailed = e ? e.total - (e.byStatus.ok ?? 0) : 0;
    return html `<div class="cards">
  <div class="card"><div class="k">calls</div><div class="v">${fmtInt(s?.total ?? 0)}</div><div class="s">last ${d.window}</div></div>
  <div class="card${failed > 0 ? ' warn' : ''}"><div class="k">failed</div><div class="v">${fmtInt(failed)}</div><div class="s">${s
        ? OUTCOMES.filter((o) => s.counts[o] > 0 && o !== 'valid')
            .map((o) => `${o} ${s.counts[o]}`)
            .join(' · ') || 'none'
        : 'none'}</div></div>
  <div class="card ${rateClass(s?.errorRate ?? null) === 'r-high' ? 'bad' : ''}"><div class="k">error rate</div><div class="v">${fmtRate(s?.errorRate ?? null)}</div><div class="s">failed / checked</div></div>
  <div class="card${execFailed > 0 ? ' warn' : ''}"><div class="k">executions</div><div class="v">${e ? fmtInt(e.total) : '—'}</div><div class="s">${e ? `${e.byStatus.client_error} refused · ${e.byStatus.server_error} down · ${e.byStatus.error} failed` : 'no tool spans'}</div></div>
  <div class="card"><div class="k">problems</div><div class="v">${fmtInt(d.problems.length)}</div><div class="s">seen in the last ${d.window}</div></div>
  <div class="card"><div class="k">versions</div><div class="v">${fmtInt(d.versions.length)}</div><div class="s">of its definition</div></div>
</div>`;
}
function trend(d) {
    const marks = d.changes.filter((c) => c.kind !== 'tool_definition' || c.tool === d.tool);
    const body = d.series
        ? callsChart(d.series, d.buckets, d.stepMs, {
            chart: 'tool-calls',
            label: `${d.tool}: calls and error rate`,
            ...(marks.length ? { overlay: (p) => markerLines(marks, p) } : {}),
        })
        : html `<div class="empty">No calls in the last ${d.window}.</div>`;
    return html `<section id="tool-trend-section"><h2>Calls and error rate <small>last ${d.window} · bars: calls (failed part red) · line: error rate · dashed: changes</small>${marks.length ? markerFilter() : ''}</h2><div class="pad"><div class="chart-box">${body}</div>
${marks.length ? html `<ul class="plain" id="tool-changes">${marks.map((c) => html `<li data-change-kind="${c.kind}">${fmtTime(c.timeMs)} ${changeSentence(c)}</li>`)}</ul>` : ''}</div></section>`;
}
function problems(d) {
    const ps = d.problems;
    // Cost and the likely change only once the problem store has them.
    const withCost = ps.some((p) => costText(p) !== undefined);
    const withCause = ps.some((p) => likelyChangeText(p) !== undefined);
    const body = ps.length
        ? html `<table><thead><tr><th>status</th><th>problem</th><th>outcome</th><th class="n">last ${d.window}</th><th class="n">all</th><th>last 24 h</th><th>first seen</th><th>last seen</th>${withCost ? html `<th class="n">cost</th>` : ''}${withCause ? html `<th>likely change</th>` : ''}</tr></thead>
<tbody id="tool-problems">${ps.map((p) => html `<tr data-problem="${p.id}" data-status="${p.status}"><td>${statusBadge(p.status, p.isNew)}</td>
<td class="sig"><a href="${problemHref(p, d.window)}">${signatureLine(p)}</a></td><td><span class="badge o-${p.outcome}">${p.outcome}</span></td>
<td class="n">${fmtInt(p.recent)}</td><td class="n">${fmtInt(p.occurrences)}</td><td class="trend">${hourSpark(p.hours, d.nowMs, p.tool)}</td>
<td>${fmtTime(p.firstSeenMs)}</td><td>${fmtTime(p.lastSeenMs)}</td>${withCost ? html `<td class="n">${costText(p) ?? '—'}</td>` : ''}${withCause ? html `<td>${likelyChangeText(p) ?? html `<span class="muted">none found</span>`}</td>` : ''}</tr>`)}</tbody></table>`
        : html `<div class="empty">No problems of ${d.tool} in the last ${d.window}.</div>`;
    return html `<section id="tool-problems-section"><h2>Problems <small>last ${d.window}</small><span class="right"><a href="${href('/api/problems', { service: d.service, tool: d.tool, since: d.window })}">/api/problems</a></span></h2>${body}</section>`;
}
function changeItem(c) {
    const cls = /added|became required/.test(c.text) ? 'add' : /removed|optional/.test(c.text) ? 'rem' : '';
    return html `<li class="${cls}" data-change="${c.kind}">${c.text}</li>`;
}
function versions(d) {
    const vs = [...d.versions].reverse();
    const api = href(`/api/tools/${encodeURIComponent(d.service)}/${encodeURIComponent(d.tool)}`);
    // The error rate per version only once the store counts calls per version (`rates`, as GET /api/tools has it).
    const ratesOf = (v) => v.rates;
    const rateOf = (v) => ratesOf(v)?.errorRate;
    const withRate = vs.some((v) => ratesOf(v) !== undefined);
    const body = vs.length
        ? html `<table class="versions"><thead><tr><th>version</th><th>first seen</th><th>last seen</th><th class="n">calls</th>${withRate ? html `<th class="n">error rate</th>` : ''}<th>changes from the version before</th></tr></thead>
<tbody id="versions">${vs.map((v, i) => {
            const rate = rateOf(v);
            return html `<tr data-version="${v.version}" data-calls="${v.calls}">
<td><code title="${v.version}">${v.version.slice(0, 8)}</code>${i === 0 ? html `<span class="tag">current</span>` : ''}</td>
<td>${fmtIso(v.firstSeen)}</td><td>${fmtIso(v.lastSeen)}</td><td class="n">${fmtInt(v.calls)}</td>
${withRate ? html `<td class="n" data-error-rate="${rate ?? ''}">${fmtRate(typeof rate === 'number' ? rate : null)}${ratesOf(v)?.checked !== undefined ? html `<div class="muted">${fmtInt(ratesOf(v)?.failed ?? 0)} of ${fmtInt(ratesOf(v).checked)}</div>` : ''}</td>` : ''}
<td>${v.changes === null ? html `<span class="muted">first version seen</span>` : v.changes.length ? html `<ul class="diff">${v.changes.map(changeItem)}</ul>` : html `<span class="muted">no change in the schema (canonical form)</span>`}
<details><summary>schema</summary>${v.definition.description ? html `<div>${v.definition.description}</div>` : ''}${valueView(v.definition.parameters)}</details></td></tr>`;
        })}</tbody></table>`
        : html `<div class="empty">No definition of ${d.tool} was seen in a request (no stored version).</div>`;
    return html `<section id="versions-section"><h2>Definition versions <small>newest first · hashed from name, description and parameters, key order ignored</small><span class="right"><a href="${api}">${api}</a></span></h2>${body}</section>`;
}
export function renderToolPage(d, nonce) {
    return documentShell({
        title: `toolwatch · ${d.tool} · ${d.service}`,
        nonce,
        header: subHeader(d.window, [
            html `<a href="${href('/', { window: d.window, service: d.service })}">${d.service}</a>`,
            html `<code>${d.tool}</code>`,
        ]),
        main: html `${cards(d)}${trend(d)}${problems(d)}${versions(d)}`,
    });
}
//# sourceMappingURL=tool-page.js.map