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
import { noteSqliteCreation, openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { WriteHealth } from './store/write-health.js';
import { Scheduler } from './jobs/scheduler.js';
import { createJudge, type Judge } from './judge/service.js';
import type { JudgeClient } from './judge/client.js';
import type { VerdictRecord } from './judge/types.js';
import { createAlerting, type Alerting } from './alerts/setup.js';
import { createLangfuse, type LangfuseOverrides, type LangfuseRuntime } from './ingest/langfuse-setup.js';

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
  /** The LLM judge (issue 4); undefined only with a store double the judge cannot share. */
  judge?: Judge;
  /** Alert rules, their states and the notification outbox; undefined when the store keeps no alert state. */
  alerting: Alerting | undefined;
  /** Langfuse as a source (issue 5); undefined unless langfuse.enabled. */
  langfuse?: LangfuseRuntime;
  /** Set while shutting down: the receiver answers 503 so clients retry elsewhere. */
  draining: boolean;
  /** Whether batch writes succeed (readiness). */
  writeHealth: WriteHealth;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  now?: () => number;
  store?: Store;
  /** Replaces the judge's OpenAI client. */
  judgeClient?: JudgeClient;
  /** Called after each recorded judge verdict (Langfuse score write-back). */
  onVerdict?: (v: VerdictRecord) => void | Promise<void>;
  /** Replaces the Langfuse client adapter, clock or sleep. */
  langfuse?: LangfuseOverrides;
}

export async function createServices(config: Config, log: Logger, overrides: ServiceOverrides = {}): Promise<Services> {
  const loaded = loadToolRegistry(config.tools);
  if (!loaded.ok) throw new ConfigError(loaded.problems);
  const now = overrides.now ?? Date.now;
  const undoCreate = overrides.store ? () => {} : noteSqliteCreation(config);
  const store = overrides.store ?? (await openStore(config, log));
  let ledger: Ledger | undefined;
  let langfuse: LangfuseRuntime | undefined;
  const metrics = createMetrics({
    pendingBatches: () => store.pendingWrites(),
    dedupeTraces: () => ledger?.size ?? 0,
    sourceLag: (): Record<string, number> => {
      const lag = langfuse?.lagSeconds();
      return lag === undefined ? {} : { langfuse: lag };
    },
  });
  ledger = new Ledger(config.dedupe, () => metrics.dedupeEvicted.inc());
  const labels = new LabelCap(config.metrics.maxLabelValues, (label) => metrics.labelOverflow.inc({ label }));
  // What start-up built so far, stopped in reverse order if a later part fails.
  // A refused start leaves no database file of its own behind (an existing one is kept).
  const built: (() => unknown)[] = [undoCreate, () => store.close()];
  const abandon = async (err: unknown): Promise<never> => {
    for (const stop of built.reverse()) await stop();
    throw err;
  };
  let judge: Judge | undefined;
  try {
    judge = createJudge(config.judge, {
      store, metrics, labels, log, now,
      ...(overrides.judgeClient ? { client: overrides.judgeClient } : {}),
      ...(overrides.onVerdict ? { onVerdict: overrides.onVerdict } : {}),
      // Verdicts become Langfuse scores when langfuse.write_scores is on (bound late: the source needs the pipeline).
      ...(!overrides.onVerdict && config.langfuse.enabled && config.langfuse.writeScores ? { onVerdict: (v: VerdictRecord) => langfuse?.onJudgeVerdict(v) } : {}),
    });
  } catch (err) {
    return abandon(err);
  }
  const writeHealth = new WriteHealth(now);
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
    sinks: judge?.sink ? [judge.sink] : [],
    writeHealth,
  });
  pipeline.restorePending(await store.loadPending());
  const scheduler = new Scheduler(log);
  built.push(() => scheduler.stop());
  scheduler.interval('settle-pending-calls', Math.min(1000, Math.max(50, config.dedupe.executionGraceMs / 4)), () => pipeline.settle());
  scheduler.every('retention', '17 * * * *', async () => {
    const removed = await store.prune(now() - config.store.retentionDays * 86_400_000);
    log.info({ removed }, 'retention: old rows removed');
  });
  const judgeJob = judge?.job;
  if (judge && judgeJob) {
    const judgeStore = judge.store;
    scheduler.every('judge', config.judge.schedule, () => judgeJob.run());
    scheduler.every('judge-retention', '23 * * * *', () => judgeStore.prune(now() - config.store.retentionDays * 86_400_000));
  }
  let alerting: Alerting | undefined;
  try {
    alerting = createAlerting({ config: config.alerts, store, metrics, log, now, scheduler, retentionDays: config.store.retentionDays });
    built.push(() => alerting?.stop());
    langfuse = await createLangfuse({ config: config.langfuse, store, pipeline, metrics, log, scheduler, ...(overrides.langfuse ? { overrides: overrides.langfuse } : {}) });
  } catch (err) {
    return abandon(err);
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
    ...(judge ? { judge } : {}),
    ...(langfuse ? { langfuse } : {}),
    draining: false,
    writeHealth,
    async close() {
      scheduler.stop();
      langfuse?.stop();
      await alerting?.stop();
      await store.close();
    },
  };
}
