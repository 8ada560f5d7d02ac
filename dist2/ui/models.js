import { href, html, raw } from './html.js';
const pct = (r) => r === null ? '—' : r > 0 && r < 0.001 ? '<0.1%' : `${(r * 100).toFixed(r >= 0.995 || r === 0 ? 0 : 1)}%`;
const num = (v) => v === null ? '—' : Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(1);
const attr = (v) => (v === null || v === undefined ? '' : String(v));
/** "3 · p90 5" for a measure; "—" without trajectories. */
function measure(m) {
    if (!m || m.median === null)
        return html `<span class="muted">—</span>`;
    return html `${num(m.median)} <span class="muted">· p90 ${num(m.p90)}</span>`;
}
function row(m, judge) {
    const t = m.trajectories;
    const ex = m.executions;
    const refused = ex.total > 0 ? ex.byStatus.client_error / ex.total : null;
    const c = m.changed;
    const changed = c
        ? html `<span class="tag" title="first call ${c.at} UTC; before: ${c.before.join(', ')}">new since ${c.at.slice(11, 16)}</span>`
        : '';
    const goal = m.reachedGoal;
    const goalCell = goal
        ? html `<td class="n" title="${goal.verdicts} verdicts, weighted">${pct(goal.rate)} (${goal.verdicts})</td>`
        : html `<td class="n">—</td>`;
    return html `<tr data-filter="${`${m.service} ${m.model}`.toLowerCase()}" data-service="${m.service}"
 data-model="${m.model}" data-calls="${m.total}" data-error-rate="${attr(m.errorRate)}"
 data-unvalidated-share="${attr(m.unvalidatedShare)}" data-executions="${ex.total}"
 data-client-errors="${ex.byStatus.client_error}" data-trajectories="${t?.trajectories ?? 0}"
 data-calls-median="${attr(t?.toolCalls.median)}" data-calls-p90="${attr(t?.toolCalls.p90)}"
 data-reached-goal="${attr(goal?.rate)}" data-changed-at="${c?.at ?? ''}">
  <td><code>${m.model || '(none)'}</code> ${changed}</td>
  <td class="n">${m.total.toLocaleString('en-US')}</td>
  <td class="n">${pct(m.errorRate)}</td>
  <td class="n">${pct(m.unvalidatedShare)}</td>
  <td class="n" title="${ex.byStatus.client_error} of ${ex.total} executions refused (4xx)">${pct(refused)}</td>
  <td class="n">${t ? t.trajectories.toLocaleString('en-US') : '0'}</td>
  <td class="n">${measure(t?.toolCalls)}</td>
  <td class="n">${measure(t?.steps)}</td>
  <td class="n">${measure(t?.tokens)}</td>
  ${judge ? goalCell : ''}
</tr>`;
}
const HEAD = [
    '<th>model</th><th class="n">calls</th><th class="n">error rate</th><th class="n">unvalidated</th>',
    '<th class="n" title="executions the downstream refused with a 4xx">refused downstream</th>',
    '<th class="n">trajectories</th><th class="n">calls / trajectory</th><th class="n">steps / trajectory</th>',
    '<th class="n">tokens / trajectory</th>',
].join('');
export function modelsSection(d) {
    const rows = d.models.models;
    const judge = d.judge !== undefined;
    const link = href('/api/stats', { window: d.window, service: d.service, by: 'model' });
    const api = html `<span class="right"><a href="${link}">/api/stats?by=model</a></span>`;
    const services = [...new Set(rows.map((m) => m.service))];
    const head = html `<thead><tr>${raw(HEAD)}${judge ? html `<th class="n">reached goal</th>` : ''}</tr></thead>`;
    const body = rows.length
        ? html `${services.map((service) => {
            const mine = rows.filter((m) => m.service === service);
            const note = mine.some((m) => m.changed) ? html ` <span class="tag">model changed</span>` : '';
            const count = `${mine.length} model${mine.length === 1 ? '' : 's'}`;
            return html `<h3 data-models-service="${service}">${service}${note} <small>${count}</small></h3>
<div class="scroll"><table>${head}<tbody>${mine.map((m) => row(m, judge))}</tbody></table></div>`;
        })}`
        : html `<div class="empty">No tool calls in the last ${d.window}${d.service ? html ` for <b>${d.service}</b>` : ''}.</div>`;
    const what = `last ${d.window} · per service · median · p90 per trajectory${judge ? ' · reached goal: judge verdicts in the window, weighted' : ''}`;
    return html `<section id="models-section"><h2>Models side by side <small>${what}</small>${api}</h2>${body}</section>`;
}
//# sourceMappingURL=models.js.map