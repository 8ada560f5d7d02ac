import { traced } from '../telemetry/tracing.js';
import { AlertStore } from './alert-store.js';
import { notifierSettings } from './config.js';
import { evaluateRound } from './evaluator.js';
import { OutboxWorker } from './outbox.js';
/** Builds alerting from a config the config phase checked against the same kinds. */
export function createAlerting(deps) {
    const { config, log } = deps;
    const notifiers = config.notifiers.map((n) => kindOf(deps.kinds.notifiers, n.kind).create(notifierSettings(n), {
        timeoutMs: config.delivery.timeoutMs,
        evaluationIntervalMs: config.intervalMs,
        log,
        now: deps.now,
    }));
    const all = notifiers.map((n) => n.name);
    const rules = config.rules.map((r) => ({
        config: r,
        kind: kindOf(deps.kinds.rules, r.kind),
        params: r.params,
        notifiers: r.notify ? [...r.notify] : all,
    }));
    const alertStore = new AlertStore(deps.store.sql);
    const resendMs = new Map(notifiers.flatMap((n) => (n.resendMs ? [[n.name, n.resendMs]] : [])));
    const outbox = new OutboxWorker({
        store: alertStore,
        notifiers,
        delivery: config.delivery,
        now: deps.now,
        log,
        onResult: (notifier, status) => deps.metrics?.notifications.inc({ notifier, status }),
    });
    for (const r of rules)
        deps.metrics?.alertsFiring.set({ rule: r.config.name }, 0);
    let evaluating = null;
    const deliverTo = (n) => deps.store.runExclusive(`alerts-outbox:${n.name}`, () => outbox.deliver(n));
    const alerting = {
        name: 'alerts',
        config,
        rules,
        notifiers,
        store: alertStore,
        async evaluate(now = deps.now()) {
            const round = () => evaluateRound({
                rules,
                io: {
                    callCounts: (q) => deps.store.callCounts(q),
                    executionCounts: (q) => deps.store.executionCounts(q),
                    ...deps.sources,
                },
                failures: (q) => deps.store.failures(q),
                alertStore,
                ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
                log,
                resendMs,
                onFiring: (firing) => {
                    for (const [rule, n] of firing)
                        deps.metrics?.alertsFiring.set({ rule }, n);
                },
            }, now);
            const run = deps.store.runExclusive('alerts', () => traced(deps.tracer, 'alerts evaluate', async (span) => {
                const r = await round();
                span?.setAttributes({
                    'toolwatch.alerts.rules': rules.length,
                    'toolwatch.alerts.firing': r.states.filter((st) => st.state === 'firing').length,
                    'toolwatch.alerts.pending': r.states.filter((st) => st.state === 'pending').length,
                    'toolwatch.alerts.messages': r.sent.length,
                    'toolwatch.alerts.resent': r.resent,
                    'toolwatch.alerts.rule_errors': r.errors.length,
                });
                return r;
            }));
            evaluating = run;
            const res = await run.finally(() => {
                if (evaluating === run)
                    evaluating = null;
            });
            return res.ran ? res.value : undefined;
        },
        async deliver() {
            await Promise.all(notifiers.map((n) => deliverTo(n)));
        },
        start(scheduler) {
            if (!rules.length)
                return;
            scheduler.interval('alerts', config.intervalMs, () => alerting.evaluate());
            // Its own job per notifier: the scheduler skips only that notifier's ticks while its pass runs.
            for (const n of notifiers)
                scheduler.interval(`alerts-outbox:${n.name}`, config.delivery.pollMs, () => deliverTo(n));
            const days = deps.retentionDays ?? 14;
            scheduler.every('alerts-retention', '23 * * * *', () => alertStore.prune(deps.now() - days * 86_400_000));
        },
        async stop(graceMs = 1000) {
            // A round in progress finishes (it is one short transaction); the outbox gets graceMs.
            await Promise.all([outbox.stop(graceMs), evaluating?.catch(() => undefined)]);
        },
    };
    return alerting;
}
function kindOf(registry, name) {
    const kind = registry.get(name);
    if (!kind)
        throw new Error(`${registry.what} ${name} is not registered (the config was checked against other kinds)`);
    return kind;
}
//# sourceMappingURL=setup.js.map