/**
 * The built-in page (GET /): what an on-call engineer opens first. Server-rendered from PageData,
 * every value escaped by the `html` template (span data is attacker-controlled).
 */
import type { CoverageRow } from '../instrumentation/coverage.js';
import type { ToolStats } from '../queries/stats.js';
import { FAILURE_OUTCOMES, OUTCOMES, UNKNOWN_TOOL, UNNAMED_TOOL } from '../model.js';
import type { StoredFailure } from '../store/store.js';
import { sparkline } from './charts.js';
import { PAGE_FAILURES, type PageData } from './data.js';
import { fmtInt, fmtIso, fmtNum, fmtRate, fmtTime, HIGH_RATE, outcomeBadge, rateClass, WARN_RATE } from './format.js';
import { href, html, raw, truncate, type SafeHtml } from './html.js';
import { documentShell } from './layout.js';
import { problemsSection, toolHref } from './problems.js';
import { trendsSection } from './trends.js';
import { isoTime } from '../util/iso-time.js';
import { modelsSection } from './models.js';

/** Windows offered as links (any `?window=` duration works). */
export const WINDOWS = ['15m', '1h', '24h'] as const;
/** Instrumentation rows and keys per row shown (all of them in /api/instrumentation). */
export const SCOPES_SHOWN = 50;
export const KEYS_SHOWN = 6;
const ARGS_SHOWN = 160;
const ERRORS_SHOWN = 3;
const TITLE_MAX = 2000;

function rateCell(r: number | null): SafeHtml {
  const step = r === null ? 0 : Math.min(20, Math.round(r * 20));
  return html`<div class="rate ${rateClass(r)}"><b>${fmtRate(r)}</b><span class="bar bar-${step}"><i></i></span></div>`;
}

function header(d: PageData): SafeHtml {
  const windows = WINDOWS.map(
    (w) =>
      html`<a class="${w === d.window ? 'on' : ''}" href="${href('/', { window: w, service: d.service })}">${w}</a>`,
  );
  const custom = (WINDOWS as readonly string[]).includes(d.window)
    ? ''
    : html`<a class="on" href="${href('/', { window: d.window, service: d.service })}">${d.window}</a>`;
  return html`<header>
  <h1 title="tool calls of LLM agents">toolwatch</h1>
  <nav class="seg" aria-label="window">${windows}${custom}</nav>
  <form method="get" action="/">
    <input type="hidden" name="window" value="${d.window}">
    <label>service <select id="service" name="service">
      <option value="">all services</option>
      ${d.services.map((s) => html`<option value="${s}"${s === d.service ? html` selected` : ''}>${s}</option>`)}
      ${d.service && !d.services.includes(d.service) ? html`<option value="${d.service}" selected>${d.service}</option>` : ''}
    </select></label>
    <noscript><button type="submit">apply</button></noscript>
  </form>
  <label>filter <input id="filter" type="search" placeholder="service, tool, trace…" autocomplete="off"></label>
  <span class="spacer"></span>
  <label><input id="auto" type="checkbox"> auto-refresh 30s</label>
  <span class="updated" title="window starts ${new Date(d.sinceMs).toISOString()}">updated ${new Date(d.nowMs).toISOString().slice(11, 19)} UTC</span>
</header>`;
}

function summaryCards(d: PageData): SafeHtml {
  const t = d.totals;
  const failed = FAILURE_OUTCOMES.reduce((n, o) => n + t.counts[o], 0);
  const firing = d.alerts?.alerts.filter((a) => a.state === 'firing').length ?? 0;
  const pending = d.alerts?.alerts.filter((a) => a.state === 'pending').length ?? 0;
  const rc = rateClass(t.errorRate);
  return html`<div class="cards">
  <div class="card"><div class="k">calls</div><div class="v">${fmtInt(t.total)}</div><div class="s">${d.tools.length} service/tool pairs</div></div>
  <div class="card"><div class="k">checked</div><div class="v">${fmtInt(t.checked)}</div><div class="s">all but unvalidated</div></div>
  <div class="card${failed > 0 ? ' warn' : ''}"><div class="k">failed</div><div class="v">${fmtInt(failed)}</div><div class="s" title="InvalidJson + UnknownName + SchemaMismatch">structural failures</div></div>
  <div class="card${rc === 'r-high' ? ' bad' : rc === 'r-warn' ? ' warn' : ''}"><div class="k">error rate</div><div class="v">${fmtRate(t.errorRate)}</div><div class="s">failed / checked</div></div>
  <div class="card"><div class="k">unvalidated</div><div class="v">${fmtInt(t.counts.unvalidated)}</div><div class="s">no arguments or no schema</div></div>
  <div class="card${firing > 0 ? ' bad' : pending > 0 ? ' warn' : ''}"><div class="k">alerts firing</div><div class="v">${d.alerts ? fmtInt(firing) : '—'}</div><div class="s">${d.alerts ? `${pending} pending` : 'not available'}</div></div>
</div>`;
}

function toolCell(d: PageData, service: string, tool: string): SafeHtml {
  if (tool === UNKNOWN_TOOL) return html`<span class="muted">${tool}</span><span class="tag">names not offered</span>`;
  if (tool === UNNAMED_TOOL)
    return html`<span class="muted">${tool}</span><span class="tag">no name in the span</span>`;
  return html`<a href="${toolHref(service, tool, d.window)}"><code>${tool}</code></a>`;
}

function toolRow(d: PageData, t: ToolStats, spark: SafeHtml): SafeHtml {
  const failed = FAILURE_OUTCOMES.reduce((n, o) => n + t.counts[o], 0);
  const link = href('/api/failures', { service: t.service, tool: t.tool, since: d.window });
  return html`<tr class="${rateClass(t.errorRate)}" data-filter="${`${t.service} ${t.tool}`.toLowerCase()}">
  <td>${t.service}</td>
  <td>${toolCell(d, t.service, t.tool)}</td>
  ${OUTCOMES.map((o) => html`<td class="n${t.counts[o] === 0 ? ' zero' : ''}">${fmtInt(t.counts[o])}</td>`)}
  <td class="n">${fmtInt(t.checked)}</td>
  <td class="n">${rateCell(t.errorRate)}</td>
  ${executionsCell(t)}
  <td class="trend">${spark}</td>
  <td class="nowrap">${failed > 0 ? html`<a href="${link}">failures</a>` : ''}</td>
</tr>`;
}

/** A tool's executions and how many failed, by class (what /api/stats has under `executions`). */
function executionsCell(t: ToolStats): SafeHtml {
  const e = t.executions;
  if (!e) return html`<td class="n zero">—</td>`;
  const b = e.byStatus;
  const parts = [
    b.client_error ? `${fmtInt(b.client_error)} refused` : '',
    b.server_error ? `${fmtInt(b.server_error)} down` : '',
    b.error ? `${fmtInt(b.error)} failed` : '',
  ].filter((x) => x !== '');
  const more = parts.length ? html`<div class="muted">${parts.join(' · ')}</div>` : '';
  return html`<td class="n" data-executions="${e.total}" data-client-errors="${b.client_error}"
 data-server-errors="${b.server_error}" data-errors="${b.error}">${fmtInt(e.total)}${more}</td>`;
}

function toolsSection(d: PageData): SafeHtml {
  const series = new Map(d.trends.tools.map((s) => [`${s.key.service}\u0000${s.key.tool}`, s]));
  const spark = (t: ToolStats) =>
    sparkline(series.get(`${t.service}\u0000${t.tool}`), d.trends.buckets, `${t.service} · ${t.tool}`);
  const body = d.tools.length
    ? html`<div class="scroll"><table>
<thead><tr><th>service</th><th>tool</th>${OUTCOMES.map((o) => html`<th class="n"><span class="dot o-${o}"></span>${o}</th>`)}<th class="n">checked</th><th class="n">error rate</th><th class="n" title="tool spans: all, and those that failed: refused by the downstream (4xx), the tool down (5xx, timeouts), failed otherwise">executions</th><th>calls over time</th><th></th></tr></thead>
<tbody id="tools">${d.tools.map((t) => toolRow(d, t, spark(t)))}</tbody>
</table></div>`
    : html`<div class="empty">No tool calls in the last ${d.window}${d.service ? html` for <b>${d.service}</b>` : ''}.</div>`;
  return html`<section id="tools-section"><h2>Tools <small>last ${d.window} · worst error rate first · amber ≥ ${fmtRate(WARN_RATE)}, red ≥ ${fmtRate(HIGH_RATE)}</small>
  <span class="right"><a href="${href('/api/stats', { window: d.window, service: d.service })}">/api/stats</a></span></h2>${body}</section>`;
}

function errorCell(f: StoredFailure): SafeHtml {
  if (f.outcome === 'SchemaMismatch' && f.errors.length) {
    const shown = f.errors
      .slice(0, ERRORS_SHOWN)
      .map((e) => html`<div><code>${e.instancePath || '/'}</code> ${truncate(e.message, 200)}</div>`);
    const more =
      f.errors.length > ERRORS_SHOWN ? html`<div class="muted">+${f.errors.length - ERRORS_SHOWN} more</div>` : '';
    return html`<td class="err">${shown}${more}</td>`;
  }
  return html`<td class="err">${truncate(f.message, 300)}</td>`;
}

function failureRow(d: PageData, f: StoredFailure): SafeHtml {
  const args = f.arguments;
  const trace = d.trajectories.has(f.traceId)
    ? html`<a class="mono" href="/api/trajectories/${f.traceId}" title="trajectory ${f.traceId}">${f.traceId.slice(0, 12)}…</a>`
    : html`<span class="mono" title="${f.traceId} (no stored trajectory)">${f.traceId.slice(0, 12)}…</span>`;
  // The failing answers of this trace as draft eval cases (redacted JSON Lines for a suite's cases.jsonl).
  // A stored time no date can show (a row no writer of ours made): the link keeps the export's default window.
  const since = isoTime(f.timeMs - 60_000);
  const exportLink = href('/api/export/cases', { trace_id: f.traceId, ...(since ? { since } : {}) });
  return html`<tr data-filter="${`${f.service} ${f.tool} ${f.name} ${f.outcome} ${f.traceId}`.toLowerCase()}">
  <td>${fmtTime(f.timeMs)}</td>
  <td>${f.service}</td>
  <td><code>${f.name}</code>${f.tool === '_unknown' ? html`<span class="tag">not offered</span>` : ''}</td>
  <td>${outcomeBadge(f.outcome)}</td>
  ${errorCell(f)}
  <td class="args">${args === undefined ? html`<span class="muted">not captured</span>` : html`<code title="${truncate(args, TITLE_MAX)}">${truncate(args, ARGS_SHOWN)}</code>`}</td>
  <td>${trace}<div><a class="export" href="${exportLink}" download title="the failing answers of this trace as draft eval cases (JSON Lines, redacted)">export as eval cases</a></div></td>
</tr>`;
}

function failuresSection(d: PageData): SafeHtml {
  const all = href('/api/failures', { since: d.window, service: d.service });
  const body = d.failures.length
    ? html`<table>
<thead><tr><th>time (UTC)</th><th>service</th><th>tool / name</th><th>outcome</th><th>error</th><th>arguments</th><th>trace</th></tr></thead>
<tbody id="failures">${d.failures.map((f) => failureRow(d, f))}</tbody>
</table>`
    : html`<div class="empty">No failed calls in the last ${d.window}.</div>`;
  return html`<section id="failures-section"><h2>Recent failures <small>last ${d.window} · newest first${d.failures.length === PAGE_FAILURES ? ` · the latest ${PAGE_FAILURES} shown` : ''}</small>
  <span class="right"><a href="${all}">all in /api/failures</a></span></h2>${body}</section>`;
}

const STATE_ORDER: Record<string, number> = { firing: 0, pending: 1, resolved: 2 };

type PageAlert = NonNullable<PageData['alerts']>['alerts'][number];

/**
 * A firing alert's attribution as its message named it (GET /api/alerts `attribution`): the likely
 * change's sentence, or the plain answer when none was found; empty while pending or for a kind
 * without one. The sentence holds span data (tool names, values): escaped like every other cell.
 */
function attributionCell(a: PageAlert['attribution']): SafeHtml {
  if (!a) return html`<td class="cause"></td>`;
  const named = a.likely_change !== null;
  return html`<td class="cause${named ? ' named' : ''}"><span class="muted">${named ? 'likely:' : 'none found:'}</span> ${truncate(a.text, 600)}</td>`;
}

function alertsSection(d: PageData): SafeHtml {
  const a = d.alerts;
  const link = html`<span class="right"><a href="/api/alerts">/api/alerts</a></span>`;
  if (!a)
    return html`<section id="alerts-section"><h2>Alerts ${link}</h2><div class="empty">This store keeps no alert state: alert rules are not evaluated.</div></section>`;
  const alerts = [...a.alerts].sort(
    (x, y) => (STATE_ORDER[x.state] ?? 3) - (STATE_ORDER[y.state] ?? 3) || x.rule.localeCompare(y.rule),
  );
  const severity = new Map(a.rules.map((r) => [r.name, r.severity]));
  const body = alerts.length
    ? html`<table>
<thead><tr><th>state</th><th>rule</th><th>severity</th><th>labels</th><th class="n">value</th><th class="n">threshold</th><th>summary</th><th>likely change</th><th>since</th></tr></thead>
<tbody id="alerts">${alerts.map(
        (s) => html`<tr data-filter="${`${s.rule} ${Object.values(s.labels).join(' ')}`.toLowerCase()}">
  <td><span class="badge s-${s.state}">${s.state}</span></td>
  <td><code>${s.rule}</code></td>
  <td>${severity.get(s.rule) ?? ''}</td>
  <td>${Object.entries(s.labels).map(([k, v]) => html`<div><span class="muted">${k}=</span>${v}</div>`)}</td>
  <td class="n">${fmtNum(s.value)}</td>
  <td class="n">${fmtNum(s.threshold)}</td>
  <td>${truncate(s.summary, 400)}</td>
  ${attributionCell(s.attribution)}
  <td>${fmtIso(s.state === 'resolved' ? s.resolvedAt : s.state === 'firing' ? s.firingSince : s.activeSince)}</td>
</tr>`,
      )}</tbody></table>`
    : html`<div class="empty">${a.rules.length ? `No alerts: ${a.rules.length} rule${a.rules.length === 1 ? '' : 's'} evaluated, none active.` : 'No alert rules configured (alerts.rules).'}</div>`;
  // null for a service-restricted token (the totals span every service).
  const outbox =
    (a.outbox.failed ?? 0) > 0 || (a.outbox.pending ?? 0) > 0
      ? html`<div class="foot">notifications: ${a.outbox.pending} pending, ${a.outbox.failed} failed permanently</div>`
      : '';
  return html`<section id="alerts-section"><h2>Alerts <small>${a.rules.length} rule${a.rules.length === 1 ? '' : 's'}</small>${link}</h2>${body}${outbox}</section>`;
}

function judgeSection(d: PageData): SafeHtml | '' {
  const j = d.judge;
  if (!j) return '';
  const rate = (label: string, r: { rate: number | null; ci95: { low: number; high: number } | null }) =>
    html`<div><div class="k">${label}</div><div class="v">${fmtRate(r.rate)}</div><div class="s">${r.ci95 ? `95% CI ${fmtRate(r.ci95.low)}–${fmtRate(r.ci95.high)}` : 'no verdicts'}</div></div>`;
  const cal = j.calibration;
  const problems = (cal?.fields ?? [])
    .filter((f) => !f.calibrated)
    .map((f) => `${f.field}: ${f.reason} (n=${f.n}${f.kappa === null ? '' : `, κ=${f.kappa.toFixed(2)}`})`);
  const last = j.runs[0];
  const statuses =
    Object.entries(j.trajectories)
      .map(([k, v]) => `${k} ${v}`)
      .join(' · ') || 'none stored';
  return html`<section id="judge-section"><h2>Judge <small>${j.model} · prompt ${j.promptVersion} · last ${j.window}${d.service ? html` · ${d.service}` : ''} · weighted</small>
  <span class="right"><a href="${href('/api/judge', { service: d.service })}">/api/judge</a></span></h2>
<div class="kv">
  <div><div class="k">verdicts</div><div class="v">${fmtInt(j.rates.n)}</div><div class="s">effective n ${j.rates.effectiveN.toFixed(1)}</div></div>
  ${rate('reached goal', j.rates.reachedGoal)}
  ${rate('with unnecessary calls', j.rates.withUnnecessaryCalls)}
  ${rate('with dangerous calls', j.rates.withDangerousCalls)}
</div>
<div class="foot">${!cal ? '' : cal.calibrated ? 'calibrated against human labels · ' : html`<b>uncalibrated</b> — ${problems.join('; ')} · `}trajectories: ${statuses}
${cal ? html` · last run: ${last ? html`${last.status}, ${fmtTime(last.startedMs)} UTC, ${last.judged} judged${last.stopReason ? `, stopped: ${last.stopReason}` : ''}` : 'none yet'}` : ''}</div>
</section>`;
}

/** A scope with LLM-looking spans that no reader knew, or that no call was read from: worth a look. */
const needsLook = (r: CoverageRow): boolean => r.unrecognizedSpans > 0 || (r.llmSpans > 0 && r.calls === 0);

const count = (n: number): SafeHtml => html`<td class="n${n === 0 ? ' zero' : ''}">${fmtInt(n)}</td>`;
const NONE = html`<span class="muted">—</span>`;

function scopeCell(r: CoverageRow): SafeHtml {
  const version = r.scopeVersion ? html` <span class="muted">${r.scopeVersion}</span>` : '';
  const tag =
    r.unrecognizedSpans > 0
      ? html`<span class="tag">not recognised</span>`
      : r.llmSpans > 0 && r.calls === 0
        ? html`<span class="tag">no calls read</span>`
        : '';
  return html`<td><code>${r.scope || '(no scope name)'}</code>${version}${tag}</td>`;
}

function scopeRow(r: CoverageRow): SafeHtml {
  const reasons = Object.entries(r.unvalidated).map(
    ([k, n]) => html`<div><span class="muted">${k}</span> ${fmtInt(n)}</div>`,
  );
  const keys = r.topKeys
    .slice(0, KEYS_SHOWN)
    .map((k) => html`<div><code>${k.key}</code> <span class="muted">${fmtInt(k.spans)}</span></div>`);
  const more =
    r.topKeys.length > KEYS_SHOWN ? html`<div class="muted">+${r.topKeys.length - KEYS_SHOWN} more</div>` : '';
  const filter = `${r.scope} ${r.scopeVersion} ${r.service} ${r.topKeys.map((k) => k.key).join(' ')}`.toLowerCase();
  return html`<tr class="${needsLook(r) ? 'look' : ''}" data-filter="${filter}">
  ${scopeCell(r)}
  <td>${r.service}</td>
  <td class="n">${fmtInt(r.spans)}</td>
  <td class="n">${fmtInt(r.llmSpans)}</td>
  ${count(r.unrecognizedSpans)}
  ${count(r.llmSpansWithoutCalls)}
  <td class="n">${fmtInt(r.calls)}</td>
  <td class="nowrap">${reasons.length ? reasons : NONE}</td>
  <td class="keys">${keys.length ? html`${keys}${more}` : NONE}</td>
</tr>`;
}

const SCOPE_HEAD = raw(
  '<thead><tr><th>scope</th><th>service</th><th class="n">spans</th><th class="n">LLM-looking</th>' +
    '<th class="n">not recognised</th><th class="n">without calls</th><th class="n">calls</th><th>unvalidated</th>' +
    '<th>top keys of LLM-looking spans without calls</th></tr></thead>',
);

function instrumentationSection(d: PageData): SafeHtml {
  const rep = d.instrumentation;
  // Scopes without any LLM-looking span (HTTP, database …) are in the API answer, not on the page;
  // the ones worth a look come first, then the API's order (most LLM-looking spans first).
  const llm = rep.scopes
    .filter((r) => r.llmSpans > 0 || r.calls > 0)
    .sort((a, b) => Number(needsLook(b)) - Number(needsLook(a)));
  const shown = llm.slice(0, SCOPES_SHOWN);
  const hidden = rep.scopes.length - llm.length;
  const body = shown.length
    ? html`<table>${SCOPE_HEAD}<tbody id="scopes">${shown.map(scopeRow)}</tbody></table>`
    : html`<div class="empty">No LLM-looking spans received since this process started${
        d.service ? html` for <b>${d.service}</b>` : ''
      }.</div>`;
  const notes = [
    llm.length > shown.length
      ? `${llm.length - shown.length} more scopes with LLM-looking spans in /api/instrumentation`
      : '',
    hidden > 0 ? `${hidden} scope/service pair${hidden === 1 ? '' : 's'} without LLM-looking spans not shown` : '',
  ].filter((n) => n !== '');
  const foot = notes.length ? html`<div class="foot">${notes.join(' · ')}</div>` : '';
  const api = href('/api/instrumentation', { service: d.service });
  return html`<section id="instrumentation-section"><h2>Instrumentation <small>this process, since ${fmtTime(
    Date.parse(rep.since),
  )} UTC · per scope and service · attribute values are never kept</small>
  <span class="right"><a href="${api}">/api/instrumentation</a></span></h2>${body}${foot}</section>`;
}

/** The whole document; `nonce` must match the response's Content-Security-Policy. */
export function renderPage(d: PageData, nonce: string): string {
  return documentShell({
    title: `toolwatch${d.service ? ` · ${d.service}` : ''} · ${d.window}`,
    nonce,
    header: header(d),
    main: html`${summaryCards(d)}
${problemsSection(d)}
${alertsSection(d)}
${trendsSection(d)}
${modelsSection(d)}
${toolsSection(d)}
${failuresSection(d)}
${instrumentationSection(d)}
${judgeSection(d)}`,
  });
}
