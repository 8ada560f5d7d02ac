/**
 * The composition root: builds every adapter and service from the frozen config. Tests build
 * their own with other adapters; nothing here listens on a socket.
 */
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { ConfigError } from './config.js';
import { loadToolRegistry, type ToolRegistry } from './check/registry.js';
import { SchemaCache } from './check/schema-cache.js';
import { LabelCap } from './metrics/label-cap.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import { Ledger } from './pipeline/ledger.js';
import { Pipeline } from './pipeline/pipeline.js';
import { openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { Scheduler } from './jobs/scheduler.js';
import { createAlerting, type Alerting } from './alerts/setup.js';

export interface Services {
  config: Config;
  log: Logger;
  now: () => number;
  store: Store;
  registry: ToolRegistry;
  metrics: Metrics;
  ledger: Ledger;
  pipeline: Pipeline;
  scheduler: Scheduler;
  /** Alert rules, their states and the notification outbox; undefined when the store keeps no alert state. */
  alerting: Alerting | undefined;
  /** Set while shutting down: the receiver answers 503 so clients retry elsewhere. */
  draining: boolean;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  now?: () => number;
  store?: Store;
}

export async function createServices(config: Config, log: Logger, overrides: ServiceOverrides = {}): Promise<Services> {
  const loaded = loadToolRegistry(config.tools);
  if (!loaded.ok) throw new ConfigError(loaded.problems);
  const now = overrides.now ?? Date.now;
  const store = overrides.store ?? (await openStore(config, log));
  let ledger: Ledger | undefined;
  const metrics = createMetrics({ pendingBatches: () => store.pendingWrites(), dedupeTraces: () => ledger?.size ?? 0 });
  ledger = new Ledger(config.dedupe, () => metrics.dedupeEvicted.inc());
  const labels = new LabelCap(config.metrics.maxLabelValues, (label) => metrics.labelOverflow.inc({ label }));
  const pipeline = new Pipeline({
    registry: loaded.registry,
    schemas: new SchemaCache(),
    ledger,
    store,
    metrics,
    labels,
    failuresPerToolPerMinute: config.store.failuresPerToolPerMinute,
    executionGraceMs: config.dedupe.executionGraceMs,
    now,
  });
  pipeline.restorePending(await store.loadPending());
  const scheduler = new Scheduler(log);
  scheduler.interval('settle-pending-calls', Math.min(1000, Math.max(50, config.dedupe.executionGraceMs / 4)), () => pipeline.settle());
  scheduler.every('retention', '17 * * * *', async () => {
    const removed = await store.prune(now() - config.store.retentionDays * 86_400_000);
    log.info({ removed }, 'retention: old rows removed');
  });
  let alerting: Alerting | undefined;
  try {
    alerting = createAlerting({ config: config.alerts, store, metrics, log, now, scheduler, retentionDays: config.store.retentionDays });
  } catch (err) {
    scheduler.stop();
    await store.close();
    throw err;
  }
  return {
    config,
    log,
    now,
    store,
    registry: loaded.registry,
    metrics,
    ledger,
    pipeline,
    scheduler,
    alerting,
    draining: false,
    async close() {
      scheduler.stop();
      await alerting?.stop();
      await store.close();
    },
  };
}
