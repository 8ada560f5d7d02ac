/**
 * Wires alerting from the checked config (src/alerts/config.ts did every check in the config
 * phase): builds the notifiers and rules from their kinds, and schedules the evaluator (every
 * alerts.interval, under store.runExclusive('alerts') so one replica evaluates) and the outbox: one
 * loop per notifier (every delivery.poll, under runExclusive('alerts-outbox:<notifier>')), so a
 * notifier that hangs or waits out a Retry-After never delays another.
 */
import type { Logger } from 'pino';
import type { Component } from '../jobs/lifecycle.js';
import type { Metrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import { traced, type Tracer } from '../telemetry/tracing.js';
import { AlertStore } from './alert-store.js';
import type { Attributor } from './cause.js';
import { notifierSettings, type AlertsConfig } from './config.js';
import { evaluateRound, type CompiledRule, type RoundResult } from './evaluator.js';
import type { RuleKinds } from './kinds/index.js';
import type { Notifier, NotifierKinds } from './notifiers/index.js';
import { OutboxWorker } from './outbox.js';
import { onceARound } from './round-reads.js';
import type { RuleSources } from './rules.js';
import { slicedCallCounts, slicedExecutionCounts } from './sliced-reads.js';

/** A component (src/jobs/lifecycle.ts): started, it schedules its rounds, one outbox job per notifier and retention. */
export interface Alerting extends Component {
  readonly config: AlertsConfig;
  readonly rules: readonly CompiledRule[];
  readonly notifiers: readonly Notifier[];
  readonly store: AlertStore;
  /** One evaluation round now (tests pass `now`); undefined when another holder has the lock. */
  evaluate(now?: number): Promise<RoundResult | undefined>;
  /** One outbox pass now, for every notifier side by side (each under its own lock). */
  deliver(): Promise<void>;
  /** Stops the outbox: an in-flight send gets graceMs to finish, then is aborted (resent later). */
  stop(graceMs?: number): Promise<void>;
}

export interface AlertingDeps {
  config: AlertsConfig;
  /** The registries the config was checked against. */
  kinds: { rules: RuleKinds; notifiers: NotifierKinds };
  store: Store;
  /** What the features' rule kinds read (the judge's verdicts, user feedback…); an absent one: its rules read none. */
  sources?: Partial<RuleSources>;
  metrics?: Pick<Metrics, 'alertsFiring' | 'notifications'>;
  log: Logger;
  now: () => number;
  /** Delivered/failed messages and resolved states older than this many days are deleted. */
  retentionDays?: number;
  /** toolwatch's own tracing (an `alerts evaluate` span per round); undefined when off. */
  tracer?: Tracer;
  /** Names a firing alert's likely change (src/alerts/cause.ts); undefined: no attribution (changes off). */
  attribute?: Attributor;
}

/** Builds alerting from a config the config phase checked against the same kinds. */
export function createAlerting(deps: AlertingDeps): Alerting {
  const { config, log } = deps;
  const notifiers = config.notifiers.map((n) =>
    kindOf(deps.kinds.notifiers, n.kind).create(notifierSettings(n), {
      timeoutMs: config.delivery.timeoutMs,
      evaluationIntervalMs: config.intervalMs,
      log,
      now: deps.now,
    }),
  );
  const all = notifiers.map((n) => n.name);
  const rules: CompiledRule[] = config.rules.map((r) => ({
    config: r,
    kind: kindOf(deps.kinds.rules, r.kind),
    params: r.params,
    notifiers: r.notify ? [...r.notify] : all,
  }));
  const alertStore = new AlertStore(deps.store.sql);
  const resendMs = new Map(notifiers.flatMap((n) => (n.resendMs ? [[n.name, n.resendMs] as const] : [])));
  const outbox = new OutboxWorker({
    store: alertStore,
    notifiers,
    delivery: config.delivery,
    now: deps.now,
    log,
    onResult: (notifier, status) => deps.metrics?.notifications.inc({ notifier, status }),
  });
  for (const r of rules) deps.metrics?.alertsFiring.set({ rule: r.config.name }, 0);
  // Long windows are read an hour at a time, so a 24 h rule does not hold ingest for its whole read;
  // each hour once a round, however many rules read it.
  const roundIo = () => ({
    callCounts: slicedCallCounts(onceARound((q) => deps.store.callCounts(q))),
    executionCounts: slicedExecutionCounts(onceARound((q) => deps.store.executionCounts(q))),
  });
  let evaluating: Promise<unknown> | null = null;
  const deliverTo = (n: Notifier) => deps.store.runExclusive(`alerts-outbox:${n.name}`, () => outbox.deliver(n));
  const alerting: Alerting = {
    name: 'alerts',
    config,
    rules,
    notifiers,
    store: alertStore,
    async evaluate(now = deps.now()) {
      const round = () =>
        evaluateRound(
          {
            rules,
            io: {
              ...roundIo(),
              ...deps.sources,
            },
            failures: (q) => deps.store.failures(q),
            alertStore,
            ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
            log,
            resendMs,
            ...(deps.attribute ? { attribute: deps.attribute } : {}),
            onFiring: (firing) => {
              for (const [rule, n] of firing) deps.metrics?.alertsFiring.set({ rule }, n);
            },
          },
          now,
        );
      const run = deps.store.runExclusive('alerts', () =>
        traced(deps.tracer, 'alerts evaluate', async (span) => {
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
        }),
      );
      evaluating = run;
      const res = await run.finally(() => {
        if (evaluating === run) evaluating = null;
      });
      return res.ran ? res.value : undefined;
    },
    async deliver() {
      await Promise.all(notifiers.map((n) => deliverTo(n)));
    },
    start(scheduler) {
      if (!rules.length) return;
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

function kindOf<T>(registry: { what: string; get(name: string): T | undefined }, name: string): T {
  const kind = registry.get(name);
  if (!kind) throw new Error(`${registry.what} ${name} is not registered (the config was checked against other kinds)`);
  return kind;
}
