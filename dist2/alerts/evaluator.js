/**
 * One evaluation round: every rule reads the minute aggregates, the pure kinds turn them into
 * observations, the pure state machine turns those into transitions, and the new states plus the
 * messages they produce are committed in one transaction (the outbox is written before anything
 * is sent). States are read from the database each round, so whichever replica holds the lock
 * next carries on exactly where the last one stopped.
 */
import { createHash } from 'node:crypto';
import { MINUTE_MS } from '../store/store.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { step } from './engine.js';
import { currentWindow, groupKey } from './rules.js';
import { loadCallWindows } from './rules.js';
export async function evaluateRound(deps, now) {
    const previous = await deps.alertStore.states();
    const byRule = new Map();
    for (const s of previous)
        byRule.set(s.rule, [...(byRule.get(s.rule) ?? []), s]);
    const commit = { upsert: [], remove: [], enqueue: [], nowMs: now };
    const result = { sent: [], states: [], errors: [], resent: 0 };
    const known = new Set(deps.rules.map((r) => r.config.name));
    // A rule removed from the config takes its states with it (as Prometheus drops them), silently.
    for (const s of previous)
        if (!known.has(s.rule))
            commit.remove.push({ rule: s.rule, groupKey: s.groupKey });
    for (const rule of deps.rules) {
        const name = rule.config.name;
        const prior = byRule.get(name) ?? [];
        let observations;
        try {
            const data = rule.kind.load
                ? await rule.kind.load(rule.params, deps.io, now)
                : await loadCallWindows(rule.params, deps.io, now);
            observations = rule.kind.evaluate(rule.params, data, now);
        }
        catch (err) {
            // One broken rule must not stop the others; its states stay as they were.
            deps.log.error({ err, rule: name }, 'alert rule failed to evaluate');
            result.errors.push({ rule: name, error: err.message });
            result.states.push(...prior);
            continue;
        }
        const obsByKey = new Map(observations.map((o) => [groupKey(o.labels), o]));
        const priorByKey = new Map(prior.map((s) => [s.groupKey, s]));
        const keys = [...new Set([...obsByKey.keys(), ...priorByKey.keys()])].sort();
        const timing = {
            forMs: rule.config.forMs,
            keepFiringForMs: rule.config.keepFiringForMs,
            repeatIntervalMs: rule.config.repeatIntervalMs,
        };
        for (const key of keys) {
            const prev = priorByKey.get(key) ?? null;
            const t = step(prev, obsByKey.get(key) ?? null, timing, now, { rule: name, groupKey: key });
            const next = t.next;
            if (t.send && next) {
                const message = await buildMessage(deps, rule, next, t.send, t.repeat, now);
                for (const notifier of rule.notifiers)
                    commit.enqueue.push({ notifier, message });
                if (t.send === 'firing')
                    markResent(next, rule.notifiers.filter((n) => deps.resendMs?.has(n)), now);
                result.sent.push({ rule: name, labels: next.labels, status: t.send, repeat: t.repeat });
            }
            else if (next?.state === 'firing') {
                const due = resendsDue(next, rule.notifiers, deps.resendMs, now);
                if (due.length) {
                    const message = await buildMessage(deps, rule, next, 'firing', true, now, { example: false });
                    // Keyed: while one re-send of this alert waits (the receiver is down), no second one piles up behind it.
                    for (const notifier of due)
                        commit.enqueue.push({ notifier, message, key: `resend:${message.fingerprint}` });
                    markResent(next, due, now);
                    result.resent += due.length;
                }
            }
            if (next) {
                commit.upsert.push(next);
                result.states.push(next);
            }
            else if (prev)
                commit.remove.push({ rule: name, groupKey: key });
        }
    }
    await deps.alertStore.commit(commit);
    const firing = new Map(deps.rules.map((r) => [r.config.name, 0]));
    for (const s of result.states)
        if (s.state === 'firing')
            firing.set(s.rule, (firing.get(s.rule) ?? 0) + 1);
    deps.onFiring?.(firing);
    return result;
}
/** The notifiers of a firing alert whose resend interval has passed since they were last sent it. */
export function resendsDue(a, notifiers, resendMs, now) {
    if (!resendMs || a.state !== 'firing')
        return [];
    return notifiers.filter((n) => {
        const every = resendMs.get(n);
        return every !== undefined && now - (a.resentAt?.[n] ?? Number.NEGATIVE_INFINITY) >= every;
    });
}
function markResent(a, notifiers, now) {
    if (notifiers.length === 0)
        return;
    a.resentAt = { ...a.resentAt };
    for (const n of notifiers)
        a.resentAt[n] = now;
}
async function buildMessage(deps, rule, a, status, repeat, now, opts = { example: true }) {
    const windowMs = parseDuration(String(rule.params.window ?? '5m')) ?? 300_000;
    const since = currentWindow(now, windowMs).sinceMs;
    const details = { ...a.details };
    if (status === 'firing' && opts.example && deps.failures && !details.example && (details.failed ?? 0) > 0) {
        try {
            const [f] = await deps.failures({
                ...(a.labels.service ? { service: a.labels.service } : {}),
                ...(a.labels.tool ? { tool: a.labels.tool } : {}),
                sinceMs: since,
                limit: 1,
            });
            if (f) {
                const e = f.errors[0];
                details.example = {
                    tool: f.tool,
                    name: f.name,
                    outcome: f.outcome,
                    path: e ? e.instancePath || '/' : '',
                    message: e ? `${e.instancePath || '/'} ${e.message}` : f.message,
                    traceId: f.traceId,
                    time: new Date(f.timeMs).toISOString(),
                };
            }
        }
        catch (err) {
            deps.log.warn({ err, rule: rule.config.name }, 'could not read an example failure for an alert');
        }
    }
    const q = new URLSearchParams();
    if (a.labels.service)
        q.set('service', a.labels.service);
    if (a.labels.tool)
        q.set('tool', a.labels.tool);
    q.set('since', new Date(since).toISOString());
    const page = new URLSearchParams();
    if (a.labels.service)
        page.set('service', a.labels.service);
    page.set('window', formatDuration(Math.max(windowMs, MINUTE_MS)));
    return {
        status,
        repeat,
        rule: rule.config.name,
        kind: rule.config.kind,
        severity: rule.config.severity,
        labels: a.labels,
        groupKey: a.groupKey,
        fingerprint: createHash('sha256').update(`${a.rule}\u0000${a.groupKey}`).digest('hex').slice(0, 16),
        value: a.value,
        threshold: a.threshold,
        summary: a.summary,
        details,
        startsAt: a.firingSince ?? a.activeSince,
        endsAt: status === 'resolved' ? a.resolvedAt : null,
        link: details.linkPath
            ? `${deps.publicUrl ?? ''}${details.linkPath}`
            : `${deps.publicUrl ?? ''}/api/failures?${q.toString()}`,
        // A kind that links to a page of its own (a problem's) is shown there, in Alertmanager too (generatorURL).
        page: details.linkPath
            ? `${deps.publicUrl ?? ''}${details.linkPath}`
            : `${deps.publicUrl ?? ''}/?${page.toString()}`,
    };
}
//# sourceMappingURL=evaluator.js.map