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
import { countingComponent, pendingCallsComponent } from './pipeline/components.js';
import { noteSqliteCreation, openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { WriteHealth } from './store/write-health.js';
import { Lifecycle } from './jobs/lifecycle.js';
import { Scheduler } from './jobs/scheduler.js';
import { judgeComponent } from './judge/component.js';
import { createJudge, type Judge } from './judge/service.js';
import type { JudgeClient } from './judge/client.js';
import type { VerdictRecord } from './judge/types.js';
import { createAlerting, type Alerting } from './alerts/setup.js';
import { createLangfuse, type LangfuseOverrides, type LangfuseRuntime } from './sources/langfuse/setup.js';
import { TokenSet } from './auth/tokens.js';
import { storeRedactor, type StoreRedactor } from './redact/stored.js';
import { CoverageTracker } from './instrumentation/coverage.js';
import type { CoverageSource } from './queries/instrumentation.js';
import type { Tracer } from './telemetry/tracing.js';
import { Feedback } from './feedback/service.js';
import { failureContextExtension, pruneFailureContexts } from './replay/context.js';
import { TrajectoryTracker } from './efficiency/tracker.js';
import { pruneTrajectories } from './efficiency/store.js';
import { storedName } from './pipeline/call-labels.js';
import { changesSink } from './changes/sink.js';
import { alertAttributor } from './queries/alert-attribution.js';
import { definitionChangeCounts, pruneChanges, valueCounts } from './changes/store.js';

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
  /** How often idle judge candidates are completed between runs (default 10 s; 0 = only when a run starts). */
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
  // Every part below is a component: started in order, stopped in reverse (store last), and a
  // refused start stops what had started and leaves no database file of its own behind.
  const scheduler = new Scheduler(log);
  const lifecycle = new Lifecycle(scheduler);
  await lifecycle.start({ name: 'store', stop: () => store.close() });
  try {
    return await startServices(config, log, overrides, {
      loaded,
      kinds,
      tokens,
      redactor,
      now,
      steady,
      store,
      scheduler,
      lifecycle,
    });
  } catch (err) {
    await lifecycle.stop();
    undoCreate();
    throw err;
  }
}

interface Started {
  loaded: { registry: ToolRegistry };
  kinds: Kinds;
  tokens: TokenSet;
  redactor: StoreRedactor;
  now: () => number;
  steady: () => number;
  store: Store;
  scheduler: Scheduler;
  lifecycle: Lifecycle;
}

async function startServices(config: Config, log: Logger, overrides: ServiceOverrides, s: Started): Promise<Services> {
  const { loaded, kinds, tokens, redactor, now, steady, store, scheduler, lifecycle } = s;
  let ledger: Ledger | undefined;
  let langfuse: LangfuseRuntime | undefined;
  let trajectories: TrajectoryTracker | undefined;
  const metrics = createMetrics({
    pendingBatches: () => store.pendingWrites(),
    dedupeTraces: () => ledger?.size ?? 0,
    dedupeBytes: () => ledger?.bytes ?? 0,
    trajectories: () => trajectories?.size ?? 0,
    sourceLag: (): Record<string, number> => {
      const lag = langfuse?.lagSeconds();
      return lag === undefined ? {} : { langfuse: lag };
    },
    ...(config.changes.enabled ? { definitionChanges: () => definitionChangeCounts(store.sql) } : {}),
  });
  ledger = new Ledger(config.dedupe, () => metrics.dedupeEvicted.inc());
  const labels = new LabelCap(
    config.metrics.maxLabelValues,
    (label) => metrics.labelOverflow.inc({ label }),
    config.metrics.maxLabelValuesPerToken,
  );
  trajectories = new TrajectoryTracker(config.trajectories, storedName);
  const feedback = new Feedback({ sql: store.sql, metrics, labels, now, log, redactor });
  // Aborted on stop: a judge request that never answers must not hold the shutdown.
  const stopping = new AbortController();
  const judge = createJudge(config.judge, {
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
      ...(config.changes.enabled ? [changesSink(store.sql, config.changes.limits, now)] : []),
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
      latestExampleEveryMs: config.problems.latestExampleEveryMs,
      registrySchema: (service, name) => loaded.registry.lookup(service, name)?.parameters,
      now,
    }),
    toolErrorRules: config.problems.toolErrorRules,
  });
  const journal = new LedgerJournal(store.sql, config.dedupe);
  await lifecycle.start(countingComponent({ pipeline, ledger, journal, store, log, steady }));
  await lifecycle.start(pendingCallsComponent({ pipeline, owner, config: config.dedupe, log }));
  await lifecycle.start({
    name: 'problems',
    start: (sch) =>
      sch.interval('problems-lifecycle', 60_000, () =>
        lifecycleRound(store.sql, metrics.problems, now(), config.problems.resolveAfterMs),
      ),
  });
  const retentionMs = config.store.retentionDays * 86_400_000;
  await lifecycle.start({
    name: 'retention',
    start(sch) {
      sch.every('retention', '17 * * * *', async () => {
        const cutoff = now() - retentionMs;
        const removed =
          (await store.prune(cutoff)) +
          (await pruneTrajectories(store.sql, cutoff)) +
          (await pruneChanges(store.sql, config.changes.maxEventsPerService, cutoff));
        log.info({ removed }, 'retention: old rows removed');
      });
      sch.every('feedback-retention', '29 * * * *', async () => {
        const cutoff = now() - retentionMs;
        await feedback.store.prune(cutoff);
        await pruneFailureContexts(store.sql, cutoff);
      });
    },
  });
  await lifecycle.start(
    judgeComponent(judge, {
      schedule: config.judge.schedule,
      completeEveryMs: overrides.judgeCompleteEveryMs ?? 10_000,
      retentionMs,
      now,
      interrupt: () => stopping.abort(),
    }),
  );
  const tracer = overrides.tracer ? { tracer: overrides.tracer } : {};
  const alerting = createAlerting({
    config: config.alerts,
    kinds,
    store,
    sources: {
      judge,
      feedback: feedback.store,
      definitions: { counts: (q) => valueCounts(store.sql, { kind: 'tool_definition', ...q }) },
      problems: problemRuleSource(store.sql, config.problems.prices),
    },
    metrics,
    log,
    now,
    retentionDays: config.store.retentionDays,
    ...tracer,
    ...(config.changes.enabled ? { attribute: alertAttributor(store.sql, config.changes.attribution) } : {}),
  });
  await lifecycle.start(alerting);
  langfuse = await createLangfuse({
    config: config.langfuse,
    store,
    pipeline,
    metrics,
    log,
    feedback: {
      record: (items, service) => feedback.record(items, service),
      ignored: (source, reason, n) => feedback.ignored(source, reason, n),
    },
    ...tracer,
    ...(overrides.langfuse ? { overrides: overrides.langfuse } : {}),
  });
  const source = langfuse;
  if (source) await lifecycle.start(source);
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
    // Requests in flight end now (judge, Langfuse); the runs they belong to end; alerts stop, the
    // waiting calls are released, held executions and trajectories written, then the store closes.
    close: () => lifecycle.stop(),
  };
}
