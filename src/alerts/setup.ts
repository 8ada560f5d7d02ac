/**
 * Wires alerting from the config: checks each rule against its kind's schema and each notifier
 * against its kind (every problem reported at once, as a ConfigError), reads `url_file` secrets,
 * and schedules the evaluator (every alerts.interval, under store.runExclusive('alerts') so one
 * replica evaluates) and the outbox (every delivery.poll, under runExclusive('alerts-outbox')).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import type { Logger } from 'pino';
import { ConfigError } from '../config.js';
import type { Scheduler } from '../jobs/scheduler.js';
import type { Metrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import { AlertStore } from './alert-store.js';
import type { AlertsConfig } from './config.js';
import { evaluateRound, type CompiledRule, type RoundResult } from './evaluator.js';
import './kinds/index.js';
import { notifierKind, type Notifier, type NotifierSettings } from './notifiers/index.js';
import { OutboxWorker } from './outbox.js';
import { ruleKind, ruleKinds } from './rules.js';

export interface Alerting {
  readonly config: AlertsConfig;
  readonly rules: readonly CompiledRule[];
  readonly notifiers: readonly Notifier[];
  readonly store: AlertStore;
  /** One evaluation round now (tests pass `now`); undefined when another holder has the lock. */
  evaluate(now?: number): Promise<RoundResult | undefined>;
  /** One outbox pass now. */
  deliver(): Promise<void>;
  /** Stops the outbox: an in-flight send gets graceMs to finish, then is aborted (resent later). */
  stop(graceMs?: number): Promise<void>;
}

export interface AlertingDeps {
  config: AlertsConfig;
  store: Store;
  metrics?: Pick<Metrics, 'alertsFiring' | 'notifications'>;
  log: Logger;
  now: () => number;
  scheduler?: Scheduler;
  /** Delivered/failed messages and resolved states older than this many days are deleted. */
  retentionDays?: number;
}

/** Checks and builds; throws ConfigError listing every problem. Undefined when the store has no alert storage. */
export function createAlerting(deps: AlertingDeps): Alerting | undefined {
  const { config, log } = deps;
  const problems: string[] = [];
  const notifiers = buildNotifiers(config, deps, problems);
  const rules = compileRules(config, new Set(notifiers.map((n) => n.name)), notifiers, problems);
  if (problems.length) throw new ConfigError(problems);
  const alertStore = new AlertStore(deps.store.sql);
  const outbox = new OutboxWorker({
    store: alertStore,
    notifiers,
    delivery: config.delivery,
    now: deps.now,
    log,
    onResult: (notifier, status) => deps.metrics?.notifications.inc({ notifier, status }),
  });
  for (const r of rules) deps.metrics?.alertsFiring.set({ rule: r.config.name }, 0);
  let evaluating: Promise<unknown> | null = null;
  const alerting: Alerting = {
    config,
    rules,
    notifiers,
    store: alertStore,
    async evaluate(now = deps.now()) {
      const run = deps.store.runExclusive('alerts', () =>
        evaluateRound(
          {
            rules,
            io: { callCounts: (q) => deps.store.callCounts(q) },
            failures: (q) => deps.store.failures(q),
            alertStore,
            ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
            log,
            onFiring: (firing) => {
              for (const [rule, n] of firing) deps.metrics?.alertsFiring.set({ rule }, n);
            },
          },
          now,
        ),
      );
      evaluating = run;
      const res = await run.finally(() => {
        if (evaluating === run) evaluating = null;
      });
      return res.ran ? res.value : undefined;
    },
    async deliver() {
      await deps.store.runExclusive('alerts-outbox', () => outbox.tick());
    },
    async stop(graceMs = 1000) {
      // A round in progress finishes (it is one short transaction); the outbox gets graceMs.
      await Promise.all([outbox.stop(graceMs), evaluating?.catch(() => undefined)]);
    },
  };
  if (deps.scheduler && rules.length) {
    deps.scheduler.interval('alerts', config.intervalMs, () => alerting.evaluate());
    deps.scheduler.interval('alerts-outbox', config.delivery.pollMs, () => alerting.deliver());
    const days = deps.retentionDays ?? 14;
    deps.scheduler.every('alerts-retention', '23 * * * *', () => alertStore.prune(deps.now() - days * 86_400_000));
  }
  return alerting;
}

function buildNotifiers(config: AlertsConfig, deps: AlertingDeps, problems: string[]): Notifier[] {
  const out: Notifier[] = [];
  const seen = new Set<string>();
  config.notifiers.forEach((n, i) => {
    const where = `alerts.notifiers.${i}`;
    if (seen.has(n.name)) problems.push(`${where}.name: duplicate notifier name ${n.name}`);
    seen.add(n.name);
    const kind = notifierKind(n.kind);
    if (!kind) return void problems.push(`${where}.kind: unknown notifier kind ${JSON.stringify(n.kind)}`);
    let url = n.url;
    if (n.url && n.urlFile) problems.push(`${where}: give url or url_file, not both`);
    if (n.urlFile) {
      try {
        url = readFileSync(n.urlFile, 'utf8').trim();
        if (!url) problems.push(`${where}.url_file: the file is empty`);
      } catch (err) {
        problems.push(`${where}.url_file: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
    if (kind.needsUrl && !url) {
      problems.push(`${where}: needs a url (url, url_file${n.kind === 'slack' ? ' or env SLACK_WEBHOOK_URL' : ''})`);
      return;
    }
    const settings: NotifierSettings = { name: n.name, kind: n.kind, ...(url ? { url } : {}), allowAnyUrl: n.allowAnyUrl, allowPrivateAddresses: n.allowPrivateAddresses };
    const bad = kind.check(settings);
    // The URL is a secret: problems name the field, never its value.
    for (const p of bad) problems.push(`${where}.${n.urlFile ? 'url_file' : 'url'}: ${p}`);
    if (bad.length === 0) out.push(kind.create(settings, { timeoutMs: config.delivery.timeoutMs, log: deps.log, now: deps.now }));
  });
  return out;
}

function compileRules(config: AlertsConfig, notifierNames: Set<string>, notifiers: Notifier[], problems: string[]): CompiledRule[] {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
  const out: CompiledRule[] = [];
  const seen = new Set<string>();
  config.rules.forEach((r, i) => {
    const where = `alerts.rules.${i}`;
    if (seen.has(r.name)) problems.push(`${where}.name: duplicate rule name ${r.name}`);
    seen.add(r.name);
    for (const n of r.notify ?? []) if (!notifierNames.has(n) && !config.notifiers.some((c) => c.name === n)) problems.push(`${where}.notify: no notifier named ${n}`);
    const kind = ruleKind(r.kind);
    if (!kind) return void problems.push(`${where}.kind: unknown rule kind ${JSON.stringify(r.kind)} (known: ${ruleKinds().join(', ')})`);
    const params = structuredClone(r.params) as Record<string, unknown>;
    const validate = ajv.compile(kind.schema);
    if (!validate(params)) {
      for (const e of validate.errors ?? []) problems.push(describe(where, e));
      return;
    }
    out.push({ config: r, kind, params, notifiers: r.notify ? [...r.notify] : notifiers.map((n) => n.name) });
  });
  return out;
}

function describe(where: string, e: ErrorObject): string {
  const at = e.instancePath ? `${where}.${e.instancePath.slice(1).replace(/\//g, '.')}` : where;
  if (e.keyword === 'additionalProperties') return `${where}.${String(e.params.additionalProperty)}: unknown key for this rule kind`;
  if (e.keyword === 'enum') return `${at}: must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'pattern') return `${at}: must be a duration such as 30s, 5m, 24h`;
  return `${at}: ${e.message ?? 'is invalid'}`;
}
