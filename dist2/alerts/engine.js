/**
 * One evaluation of one group. `obs` is null when the group produced no reading this time (no
 * calls at all in the window): that counts as inactive, as an absent series does in Prometheus.
 */
export function step(prev, obs, t, now, id) {
    // A pending or firing alert lasts while the observation keeps it; only `active` starts one.
    const started = prev !== null && prev.state !== 'resolved';
    const active = obs?.active === true || (started && obs?.keep === true);
    const reading = obs
        ? { labels: obs.labels, value: obs.value, threshold: obs.threshold, summary: obs.summary, details: obs.details }
        : {};
    const none = { next: null, send: null, repeat: false };
    if (active) {
        if (!prev || prev.state === 'resolved') {
            const pending = {
                rule: id.rule,
                groupKey: id.groupKey,
                labels: obs.labels,
                state: 'pending',
                activeSince: now,
                firingSince: null,
                lastActiveAt: now,
                lastNotifiedAt: null,
                resolvedAt: null,
                evaluatedAt: now,
                value: obs.value,
                threshold: obs.threshold,
                summary: obs.summary,
                details: obs.details,
            };
            if (t.forMs > 0)
                return { next: pending, send: null, repeat: false };
            return {
                next: { ...pending, state: 'firing', firingSince: now, lastNotifiedAt: now },
                send: 'firing',
                repeat: false,
            };
        }
        const cur = { ...prev, ...reading, lastActiveAt: now, evaluatedAt: now };
        if (prev.state === 'pending') {
            if (now - prev.activeSince < t.forMs)
                return { next: cur, send: null, repeat: false };
            return {
                next: { ...cur, state: 'firing', firingSince: now, lastNotifiedAt: now },
                send: 'firing',
                repeat: false,
            };
        }
        return repeatIfDue(cur, t, now);
    }
    if (!prev)
        return none;
    if (prev.state === 'pending')
        return none; // flapped inside `for`: forgotten, nothing was sent
    if (prev.state === 'resolved')
        return { next: prev, send: null, repeat: false };
    // firing, condition false
    const cur = { ...prev, ...reading, labels: prev.labels, evaluatedAt: now };
    if (now - prev.lastActiveAt < t.keepFiringForMs)
        return repeatIfDue(cur, t, now);
    return { next: { ...cur, state: 'resolved', resolvedAt: now }, send: 'resolved', repeat: false };
}
function repeatIfDue(cur, t, now) {
    if (cur.lastNotifiedAt !== null && now - cur.lastNotifiedAt >= t.repeatIntervalMs) {
        return { next: { ...cur, lastNotifiedAt: now }, send: 'firing', repeat: true };
    }
    return { next: cur, send: null, repeat: false };
}
//# sourceMappingURL=engine.js.map