/** What one notification says, whatever the notifier: stored in the outbox as JSON, rendered at send time. */
import { pct } from './rules.js';
/** A rule's value as people read it: a share in percent, a drift distance as a plain number, a burn rate as a factor, a count as a count. */
export function formatValue(kind, v) {
    if (kind === 'drift')
        return v.toFixed(3);
    if (kind === 'error_budget_burn')
        return `${Number(v.toFixed(1))}×`;
    if (kind === 'new_problem' || kind === 'regressed_problem')
        return String(v);
    return pct(v);
}
/** The labels an alert carries in Alertmanager's formats: alertname = the rule, severity, the group (service, tool, model). */
export function alertLabels(m) {
    return { alertname: m.rule, severity: m.severity, ...m.labels };
}
/** The annotations both Alertmanager formats share: summary, value, threshold, kind, window. */
export function alertAnnotations(m) {
    const a = {
        summary: m.summary,
        value: String(m.value),
        threshold: String(m.threshold),
        kind: m.kind,
    };
    if (m.details.window)
        a.window = String(m.details.window);
    return a;
}
/** Plain text for people: what fired, the numbers, the tools involved, one example failure. */
export function describeAlert(m) {
    const group = Object.entries(m.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ') || 'all calls';
    const cmp = m.kind === 'error_rate_drift' ? 'baseline' : 'threshold';
    const lines = [`${m.rule} (${m.kind}, ${m.severity}) for ${group}: ${m.summary}.`];
    lines.push(`Value ${formatValue(m.kind, m.value)} vs ${cmp} ${formatValue(m.kind, m.threshold)}${m.details.window ? ` over ${m.details.window}` : ''}.`);
    const top = m.details.topTools ?? [];
    if (top.length)
        lines.push(`Top tools: ${top.map((t) => (t.checked ? `${t.tool} ${t.failed} failed of ${t.checked}` : `${t.tool} ${t.failed}`)).join('; ')}.`);
    const shifts = m.details.shifts ?? [];
    if (shifts.length)
        lines.push(`Share moved most: ${shifts.map((s) => `${s.tool} ${pct(s.before)} → ${pct(s.after)}`).join('; ')}.`);
    const ex = m.details.example;
    if (ex)
        lines.push(`Example: ${ex.outcome} in ${ex.name}${ex.path ? ` at ${ex.path}` : ''}: ${ex.message} (trace ${ex.traceId}).`);
    lines.push(`${m.details.problem ? 'Problem' : 'Failures'}: ${m.link}`);
    return lines.join('\n');
}
//# sourceMappingURL=message.js.map