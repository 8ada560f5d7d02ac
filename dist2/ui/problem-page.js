import { CHANGES_BEFORE_MS } from '../queries/problems.js';
import { isoTime } from '../util/iso-time.js';
import { fmtInt, fmtTime, outcomeBadge } from './format.js';
import { href, html } from './html.js';
import { jsonView, valueView } from './json-view.js';
import { documentShell, subHeader } from './layout.js';
import { changeSentence, countChart } from './markers.js';
import { costText, likelyChangeText, statusBadge, toolHref } from './problems.js';
import { signatureWords } from './problem-words.js';
const HOUR = 3_600_000;
/** The hourly chart covers at least the last day, at most this many hours back from now. */
export const CHART_HOURS = 7 * 24;
const MIN_CHART_HOURS = 24;
function cards(d) {
    const p = d.detail.problem;
    const cost = costText(p);
    return html `<div class="cards">
  <div class="card${p.status === 'regressed' || p.status === 'open' ? ' bad' : ''}"><div class="k">status</div><div class="v">${statusBadge(p.status)}</div><div class="s">since ${fmtTime(p.statusMs)}</div></div>
  <div class="card"><div class="k">occurrences</div><div class="v" id="occurrences">${fmtInt(p.occurrences)}</div><div class="s">failed calls or executions</div></div>
  <div class="card"><div class="k">first seen</div><div class="v">${fmtTime(p.firstSeenMs)}</div><div class="s">UTC</div></div>
  <div class="card"><div class="k">last seen</div><div class="v">${fmtTime(p.lastSeenMs)}</div><div class="s">UTC</div></div>
  <div class="card"><div class="k">models</div><div class="v">${fmtInt(d.detail.models.length)}</div><div class="s">${d.detail.models.map((m) => m.model || '(none)').join(', ') || '—'}</div></div>
  <div class="card"><div class="k">cost</div><div class="v">${cost ?? '—'}</div><div class="s">${cost ? 'repair turns after the failed call' : 'not measured for this problem'}</div></div>
</div>`;
}
function signature(d) {
    const p = d.detail.problem;
    const tool = p.outcome !== 'UnknownName' && p.id !== '_other'
        ? html ` · <a href="${toolHref(p.service, p.tool, d.window)}">tool view of <code>${p.tool}</code></a>`
        : '';
    return html `<section id="signature-section"><h2>Signature <small>${outcomeBadge(p.outcome)} · ${p.service}${tool}</small></h2>
<div class="pad"><ul class="plain" id="signature-words">${signatureWords(p).map((w) => html `<li>${w}</li>`)}</ul>
<div class="muted">id <code>${p.id}</code> = the first 16 hex digits of the SHA-256 of <code id="canonical">${p.canonical}</code></div></div></section>`;
}
function trend(d) {
    const p = d.detail.problem;
    const last = d.nowMs - (d.nowMs % HOUR);
    const firstSeenHour = p.firstSeenMs - (p.firstSeenMs % HOUR);
    const first = Math.max(Math.min(firstSeenHour, last - (MIN_CHART_HOURS - 1) * HOUR), last - (CHART_HOURS - 1) * HOUR);
    const buckets = [];
    for (let t = first; t <= last; t += HOUR)
        buckets.push(t);
    const by = new Map(d.detail.hours.map((h) => [h.hour, h.count]));
    const counts = buckets.map((t) => by.get(t) ?? 0);
    return html `<section id="trend-section"><h2>Occurrences per hour <small>UTC · dashed: changes of ${p.service}</small></h2>
<div class="pad">${countChart(buckets, counts, HOUR, { chart: 'problem-hours', label: 'occurrences per hour', marks: d.detail.changes })}</div></section>`;
}
function cause(d) {
    const p = d.detail.problem;
    // Attribution (GET /api/problems/:id's likely_change and attribution.text) once the detail carries it.
    const extra = { ...p, ...d.detail };
    const likely = likelyChangeText(extra);
    const verdict = typeof extra.attribution?.text === 'string' ? extra.attribution.text : undefined;
    const list = d.detail.changes;
    const before = list.filter((c) => c.timeMs <= p.firstSeenMs);
    const during = list.filter((c) => c.timeMs > p.firstSeenMs);
    const item = (c) => html `<li data-change-kind="${c.kind}">${fmtTime(c.timeMs)} ${changeSentence(c)}</li>`;
    const head = likely
        ? html `<div id="likely-change"><b>Likely change:</b> ${likely}</div>`
        : html `<div id="likely-change" class="muted">${verdict ?? (before.length ? 'No change is named as the likely cause.' : `No change of ${p.service} in the ${CHANGES_BEFORE_MS / HOUR} h before this problem began.`)}</div>`;
    return html `<section id="cause-section"><h2>What changed <small>changes of ${p.service} from ${CHANGES_BEFORE_MS / HOUR} h before the first occurrence · correlation, not proof</small>
  <span class="right"><a href="${href('/api/changes', { service: p.service })}">/api/changes</a></span></h2>
<div class="pad">${head}
${before.length ? html `<div>Before it began:</div><ul class="plain" id="changes-before">${before.map(item)}</ul>` : ''}
${during.length ? html `<div>While it occurred:</div><ul class="plain" id="changes-during">${during.map(item)}</ul>` : ''}</div></section>`;
}
function modelsTable(d) {
    const ms = d.detail.models;
    if (!ms.length)
        return html ``;
    return html `<section id="problem-models-section"><h2>Models <small>occurrences per model</small></h2><table><thead><tr><th>model</th><th class="n">occurrences</th></tr></thead>
<tbody id="problem-models">${ms.map((m) => html `<tr><td><code>${m.model || '(none)'}</code></td><td class="n">${fmtInt(m.count)}</td></tr>`)}</tbody></table></section>`;
}
function example(d, e) {
    const p = d.detail.problem;
    const since = isoTime(e.timeMs - 60_000);
    const exportLink = href('/api/export/cases', { trace_id: e.traceId, ...(since ? { since } : {}) });
    const args = e.arguments === undefined
        ? html `<div class="muted">arguments not captured</div>`
        : jsonView(e.arguments, p.outcome === 'SchemaMismatch' ? p.parts : []);
    return html `<div class="example" data-slot="${e.slot}" data-trace="${e.traceId}">
<div class="meta">${e.slot} · ${fmtTime(e.timeMs)} UTC · <code>${e.model || '(no model)'}</code> · <code>${e.name}</code> · trace <span class="mono" title="${e.traceId}">${e.traceId.slice(0, 12)}…</span> · <a class="export" href="${exportLink}" download>export as eval cases</a></div>
<div class="err">${e.message}</div>${args}</div>`;
}
function examples(d) {
    const ex = d.detail.examples;
    const body = ex.length
        ? html `<div class="examples" id="examples">${ex.map((e) => example(d, e))}</div>`
        : html `<div class="empty">No examples kept (failed executions keep none).</div>`;
    return html `<section id="examples-section"><h2>Examples <small>the first, the latest and one per model · redacted as stored failures are</small></h2>${body}</section>`;
}
/** The definition offered at the latest example's time (else the newest version). */
function schema(d) {
    if (!d.versions.length)
        return '';
    const at = d.detail.examples.at(-1)?.timeMs ?? d.detail.problem.lastSeenMs;
    const v = d.versions.find((x) => x.firstSeen !== null && x.lastSeen !== null && Date.parse(x.firstSeen) <= at && at <= Date.parse(x.lastSeen)) ?? d.versions.at(-1);
    return html `<section id="schema-section"><h2>Offered schema <small>version <code>${v.version.slice(0, 8)}</code> of ${d.versions.length} · ${fmtInt(v.calls)} calls</small></h2>
<div class="pad">${v.definition.description ? html `<div>${v.definition.description}</div>` : ''}${valueView(v.definition.parameters)}</div></section>`;
}
export function renderProblemPage(d, nonce) {
    const p = d.detail.problem;
    const api = href(`/api/problems/${encodeURIComponent(p.id)}`, { service: p.service });
    return documentShell({
        title: `toolwatch · problem ${p.id} · ${p.service}`,
        nonce,
        header: subHeader(d.window, [
            html `<a href="${href('/', { window: d.window })}#problems-section">problems</a>`,
            p.service,
            html `<code>${p.id}</code>`,
            html `<a href="${api}">${api}</a>`,
        ]),
        main: html `${cards(d)}${signature(d)}${cause(d)}${trend(d)}${examples(d)}${schema(d)}${modelsTable(d)}`,
    });
}
//# sourceMappingURL=problem-page.js.map