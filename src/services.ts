/**
 * The composition root: builds every adapter and service from the frozen config. Tests build
 * their own with other adapters; nothing here listens on a socket.
 */
import { problemRuleSource } from './problems/alert-kinds.js';
import { lifecycleRound } from './problems/lifecycle.js';
import { ProblemRecorder } from './problems/record.js';
import { steadyClock } from './util/steady-clock.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { loadToolRegistry, type ToolRegistry } from './check/registry.js';
import { builtinKinds, type Kinds } from './kinds.js';
import { SchemaCache } from './check/schema-cache.js';
import { LabelCap } from './metrics/label-cap.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import { Ledger } from './pipeline/ledger.js';
import { Pipeline } from './pipeline/pipeline.js';
import { LedgerJournal } from './pipeline/ledger-journal.js';
import { PendingOwner } from './pipeline/pending-owner.js';
import { noteSqliteCreation, openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { WriteHealth } from './store/write-health.js';
import { Scheduler } from './jobs/scheduler.js';
import { createJudge, type Judge } from './judge/service.js';
import type { JudgeClient } from './judge/client.js';
import type { VerdictRecord } from './judge/types.js';
import { createAlerting, type Alerting } from './alerts/setup.js';
import { createLangfuse, type LangfuseOverrides, type LangfuseRuntime } from './sources/langfuse/setup.js';
import { TokenSet } from './auth/tokens.js';
import { storeRedactor } from './redact/stored.js';
import { CoverageTracker } from './instrumentation/coverage.js';
import type { CoverageSource } from './queries/instrumentation.js';
import type { Tracer } from './telemetry/tracing.js';
import { Feedback } from './feedback/service.js';
import { failureContextExtension, pruneFailureContexts } from './replay/context.js';
import { TrajectoryTracker } from './efficiency/tracker.js';
import { pruneTrajectories } from './efficiency/store.js';
import { modelLabel } from './pipeline/write-batch.js';
import { changesSink } from './changes/sink.js';
import { pruneChanges } from './changes/store.js';

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
  /** The registries of dialects, rule kinds and notifier kinds of this instance. */
  kinds: Kinds;
  /** The LLM judge: its store and calibration always; its sampler and job when enabled. */
  judge: Judge;
  /** Alert rules, their states and the notification outbox. */
  alerting: Alerting;
  /** The instrumentation-coverage report of this process (in memory, since start). */
  coverage: CoverageSource;
  /** User feedback per trace (POST /api/feedback, span attributes, Langfuse scores). */
  feedback: Feedback;
  /** Langfuse as a source; undefined unless langfuse.enabled. */
  langfuse?: LangfuseRuntime;
  /** The API tokens in force (auth.tokens; reload() on SIGHUP). */
  tokens: TokenSet;
  /** Set while shutting down: the receiver answers 503 so clients retry elsewhere. */
  draining: boolean;
  /** Whether batch writes succeed (readiness). */
  writeHealth: WriteHealth;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  now?: () => number;
  /**
   * The monotonic clock behind the timers (util/steady-clock.ts; default performance.now). A test that
   * passes `now` alone drives the timers with it too.
   */
  monotonic?: () => number;
  store?: Store;
  /** Replaces the judge's OpenAI client. */
  judgeClient?: JudgeClient;
  /** Called after each recorded judge verdict (Langfuse score write-back). */
  onVerdict?: (v: VerdictRecord) => void | Promise<void>;
  /** Replaces the Langfuse client adapter, clock or sleep. */
  langfuse?: LangfuseOverrides;
  /** The registries (default: the built-in kinds); pass the ones the config was loaded with. */
  kinds?: Kinds;
  /** How often idle judge candidates are completed between runs (default 60 s; 0 = only when a run starts). */
  judgeCompleteEveryMs?: number;
  /** The tracer of the running self-telemetry (src/telemetry/sdk.ts, started by main.ts); none = off. */
  tracer?: Tracer;
}

/** Builds everything from a config the config phase checked; never reports a configuration problem. */
export async function createServices(config: Config, log: Logger, overrides: ServiceOverrides = {}): Promise<Services> {
  const loaded = loadToolRegistry(config.tools);
  // loadConfig read these files already; failing now means they changed under us.
  if (!loaded.ok)
    throw new Error(`tool registry files changed since the config was checked: ${loaded.problems.join('; ')}`);
  const kinds = overrides.kinds ?? builtinKinds();
  // Before the store opens: a token file that vanished since the config phase stops start-up here.
  const tokens = new TokenSet(config.auth);
  const redactor = storeRedactor(config.store.redactArguments);
  const now = overrides.now ?? Date.now;
  // Durations, TTLs and graces: a wall-clock jump must not expire or stretch them.
  const steady = overrides.now && !overrides.monotonic ? overrides.now : steadyClock(now, overrides.monotonic);
  const undoCreate = overrides.store ? () => {} : noteSqliteCreation(config);
  const store =
    overrides.store ??
    (await openStore(config, log).catch((err: unknown) => {
      undoCreate();
      throw err;
    }));
  let ledger: Ledger | undefined;
  let langfuse: LangfuseRuntime | undefined;
  let trajectories: TrajectoryTracker | undefined;
  const metrics = createMetrics({
    pendingBatches: () => store.pendingWrites(),
    dedupeTraces: () => ledger?.size ?? 0,
    trajectories: () => trajectories?.size ?? 0,
    sourceLag: (): Record<string, number> => {
      const lag = langfuse?.lagSeconds();
      return lag === undefined ? {} : { langfuse: lag };
    },
  });
  ledger = new Ledger(config.dedupe, () => metrics.dedupeEvicted.inc());
  const labels = new LabelCap(
    config.metrics.maxLabelValues,
    (label) => metrics.labelOverflow.inc({ label }),
    config.metrics.maxLabelValuesPerToken,
  );
  trajectories = new TrajectoryTracker(config.trajectories, (model, budget) => modelLabel(model, labels, budget));
  // What start-up built so far, stopped in reverse order if a later part fails.
  // A refused start leaves no database file of its own behind (an existing one is kept).
  const built: (() => unknown)[] = [undoCreate, () => store.close()];
  const abandon = async (err: unknown): Promise<never> => {
    for (const stop of built.reverse()) await stop();
    throw err;
  };
  const feedback = new Feedback({ sql: store.sql, metrics, labels, now, log, redactor });
  // Aborted by close(): a judge request that never answers must not hold the shutdown.
  const stopping = new AbortController();
  let judge: Judge;
  try {
    judge = createJudge(config.judge, {
      signal: stopping.signal,
      store,
      metrics,
      labels,
      log,
      now,
      redactor,
      negativeFeedback: (ids) => feedback.store.negativeTraces(ids),
      ...(overrides.judgeClient ? { client: overrides.judgeClient } : {}),
      ...(overrides.tracer ? { tracer: overrides.tracer } : {}),
      ...(overrides.onVerdict ? { onVerdict: overrides.onVerdict } : {}),
      // Verdicts become Langfuse scores when langfuse.write_scores is on (bound late: the source needs the pipeline).
      ...(!overrides.onVerdict && config.langfuse.enabled && config.langfuse.writeScores
        ? { onVerdict: (v: VerdictRecord) => langfuse?.onJudgeVerdict(v) }
        : {}),
    });
  } catch (err) {
    return abandon(err);
  }
  const coverage: CoverageSource = { tracker: new CoverageTracker(), sinceMs: now() };
  const writeHealth = new WriteHealth(now);
  // Waiting calls: this process counts only those it holds (one process per SQLite file).
  const owner = new PendingOwner(store.sql, {
    leaseMs: config.dedupe.pendingLeaseMs,
    now,
    takeAllAtStart: store.kind === 'sqlite',
  });
  const pipeline = new Pipeline({
    dialects: kinds.dialects,
    registry: loaded.registry,
    schemas: new SchemaCache(),
    check: config.check,
    ledger,
    store,
    metrics,
    labels,
    failuresPerToolPerMinute: config.store.failuresPerToolPerMinute,
    redactor,
    executionGraceMs: config.dedupe.executionGraceMs,
    owner: owner.id,
    statusGraceMs: config.dedupe.statusGraceMs,
    trajectories,
    now,
    steady,
    sinks: [
      ...(config.changes.enabled ? [changesSink(store.sql.dialect, config.changes.limits)] : []),
      ...(judge.sink ? [judge.sink] : []),
    ],
    coverage: coverage.tracker,
    writeHealth,
    ...(overrides.tracer ? { tracer: overrides.tracer } : {}),
    taps: [feedback.tap],
    failureContext: (failures, facts) => failureContextExtension(failures, facts, now(), redactor),
    counted: new ProblemRecorder({
      sql: store.sql,
      redactor,
      maxPerService: config.problems.maxPerService,
      registrySchema: (service, name) => loaded.registry.lookup(service, name)?.parameters,
      now,
    }),
  });
  // The dedupe memory as the previous process left it, then the waiting calls this process may count.
  const journal = new LedgerJournal(store.sql, config.dedupe);
  const adopt = async (rows: Parameters<Pipeline['restorePending']>[0]) => {
    const restored = pipeline.restorePending(rows);
    if (restored.unreadable.length > 0) {
      // Not counted (this version cannot read them); they stay in the table for inspection.
      const { unreadable } = restored;
      const first = unreadable.slice(0, 5);
      log.warn({ unreadable: unreadable.length, first }, 'pending calls: unreadable rows skipped');
    }
    if (restored.superseded.length > 0) await owner.drop(restored.superseded);
    return restored.restored;
  };
  try {
    const loaded = await journal.load(ledger, steady());
    if (loaded.unreadable > 0) {
      log.warn({ unreadable: loaded.unreadable }, 'dedupe journal: unreadable records skipped');
    }
    log.debug({ ...loaded }, 'dedupe journal loaded');
    await adopt(await owner.start());
  } catch (err) {
    return abandon(err);
  }
  built.push(() => owner.release().catch(() => undefined));
  const scheduler = new Scheduler(log);
  built.push(() => scheduler.stop());
  // The shorter of the two graces sets the round (a status grace of 0 holds nothing).
  const graces = Math.min(config.dedupe.executionGraceMs, config.dedupe.statusGraceMs || Number.POSITIVE_INFINITY);
  scheduler.interval('settle-pending-calls', Math.min(1000, Math.max(50, graces / 4)), () => pipeline.settle());
  // Renew this process's lease and take over the waiting calls of processes gone.
  scheduler.interval('pending-calls-lease', owner.renewEveryMs, async () => {
    const n = await adopt(await owner.renew());
    if (n > 0) log.info({ calls: n }, 'pending calls taken over from a process gone');
  });
  const pruneJournal = () => store.runExclusive('dedupe-journal-prune', () => journal.prune());
  scheduler.interval('dedupe-journal-prune', 1_000, pruneJournal);
  scheduler.interval('problems-lifecycle', 60_000, () =>
    lifecycleRound(store.sql, metrics.problems, now(), config.problems.resolveAfterMs),
  );
  scheduler.every('retention', '17 * * * *', async () => {
    const cutoff = now() - config.store.retentionDays * 86_400_000;
    const removed =
      (await store.prune(cutoff)) +
      (await pruneTrajectories(store.sql, cutoff)) +
      (await pruneChanges(store.sql, config.changes.maxEventsPerService, cutoff));
    log.info({ removed }, 'retention: old rows removed');
  });
  scheduler.every('feedback-retention', '29 * * * *', async () => {
    const cutoff = now() - config.store.retentionDays * 86_400_000;
    await feedback.store.prune(cutoff);
    await pruneFailureContexts(store.sql, cutoff);
  });
  const judgeJob = judge.job;
  if (judgeJob) {
    const judgeStore = judge.store;
    scheduler.every('judge', config.judge.schedule, () => judgeJob.run());
    // Idle candidates complete every minute, not only when a run starts: a candidate's steps (every
    // trace's, with feedback_rate 1) are kept for about judge.idle + 1 minute, not up to an hour more.
    const completeEveryMs = overrides.judgeCompleteEveryMs ?? 60_000;
    if (completeEveryMs > 0) scheduler.interval('judge-complete', completeEveryMs, () => judgeJob.complete());
    scheduler.every('judge-retention', '23 * * * *', () =>
      judgeStore.prune(now() - config.store.retentionDays * 86_400_000),
    );
  }
  let alerting: Alerting;
  try {
    const tracer = overrides.tracer ? { tracer: overrides.tracer } : {};
    alerting = createAlerting({
      config: config.alerts,
      kinds,
      store,
      sources: { judge, feedback: feedback.store, problems: problemRuleSource(store.sql) },
      metrics,
      log,
      now,
      scheduler,
      retentionDays: config.store.retentionDays,
      ...tracer,
    });
    const started = alerting;
    built.push(() => started.stop());
    langfuse = await createLangfuse({
      config: config.langfuse,
      store,
      pipeline,
      metrics,
      log,
      scheduler,
      feedback: {
        record: (items, service) => feedback.record(items, service),
        ignored: (source, reason, n) => feedback.ignored(source, reason, n),
      },
      ...tracer,
      ...(overrides.langfuse ? { overrides: overrides.langfuse } : {}),
    });
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
    kinds,
    alerting,
    judge,
    coverage,
    feedback,
    ...(langfuse ? { langfuse } : {}),
    tokens,
    draining: false,
    writeHealth,
    async close() {
      scheduler.stop();
      // Requests in flight end now (judge, Langfuse); the runs they belong to end, then the store closes.
      stopping.abort();
      langfuse?.stop();
      await scheduler.settled();
      await alerting.stop();
      // Its waiting calls go to the next process to look (batches still being written are held too).
      await owner.release().catch((err: unknown) => {
        log.warn({ err }, 'pending calls: not released; another process takes them over when the lease ends');
      });
      // Held executions and trajectories in flight are counted as they stand (a crash loses them).
      await pipeline
        .drain()
        .catch((err: unknown) => log.error({ err }, 'shutdown: held executions and trajectories not written'));
      await store.close();
    },
  };
}
