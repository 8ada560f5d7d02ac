/**
 * Wires the judge from the config: its store (over the core store's database), the trajectory
 * sink for the pipeline, the job with its OpenAI-compatible client, and the metrics adapter.
 * The composition root (services.ts) and the CLI both use this.
 */
import type { Logger } from 'pino';
import type { LabelCap } from '../metrics/label-cap.js';
import type { Metrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import type { Tracer } from '../telemetry/tracing.js';
import { calibrate, KAPPA_FIELDS, type Calibration } from './calibration.js';
import { OpenAIJudgeClient, type JudgeClient } from './client.js';
import type { JudgeConfig } from './config.js';
import { JudgeJob, type JudgeJobDeps, type JudgeMetricsPort } from './job.js';
import { loadPrompt } from './prompt-file.js';
import { createRedactor } from '../redact/redact.js';
import type { StoreRedactor } from '../redact/stored.js';
import type { SamplingPolicy } from './sampler.js';
import { JudgeStore } from './store.js';
import { TrajectorySink } from './trajectory.js';
import type { VerdictRecord } from './types.js';

export interface Judge {
  config: JudgeConfig;
  store: JudgeStore;
  /** Present when the judge is enabled. */
  sink?: TrajectorySink;
  job?: JudgeJob;
  calibration(): Promise<Calibration>;
  /** Recomputes κ and sets the gauge. */
  refreshKappa(): Promise<Calibration>;
}

export interface JudgeWiring {
  store: Store;
  metrics: Metrics;
  labels: LabelCap;
  log: Logger;
  now: () => number;
  /** Masks sampled trajectories before they are stored (store.redact_arguments). */
  redactor: StoreRedactor;
  /** Replaces the OpenAI client (tests). */
  client?: JudgeClient;
  /** Aborted when toolwatch stops: the judge's requests in flight end at once. */
  signal?: AbortSignal;
  onVerdict?: (v: VerdictRecord) => void | Promise<void>;
  /** toolwatch's own tracing; undefined when off. */
  tracer?: Tracer;
  /** Which of these traces got negative user feedback (the feedback stratum); absent: none did. */
  negativeFeedback?: (traceIds: string[]) => Promise<Set<string>>;
}

export function policyOf(cfg: JudgeConfig): SamplingPolicy {
  return {
    sampleRate: cfg.sampleRate,
    serviceRates: cfg.serviceRates,
    ...(cfg.failedRate !== undefined ? { failedRate: cfg.failedRate } : {}),
    ...(cfg.feedbackRate > 0 ? { feedbackRate: cfg.feedbackRate } : {}),
  };
}

export function metricsPort(metrics: Metrics, labels: LabelCap): JudgeMetricsPort {
  return {
    verdict(service, v) {
      const s = labels.value('service', service);
      metrics.judgeVerdicts.inc({ service: s, reached_goal: String(v.reached_goal) });
      metrics.judgeUnnecessaryCalls.inc({ service: s }, v.unnecessary_calls);
      metrics.judgeDangerousCalls.inc({ service: s }, v.dangerous_calls);
    },
    error: (reason) => metrics.judgeErrors.inc({ reason }),
    run: (status) => metrics.judgeRuns.inc({ status }),
    usage(input, output, cost) {
      metrics.judgeTokens.inc({ type: 'input' }, input);
      metrics.judgeTokens.inc({ type: 'output' }, output);
      metrics.judgeCost.inc(cost);
    },
  };
}

/** Builds the judge from a checked config: always its store and calibration; the sampler and job when active. */
export function createJudge(cfg: JudgeConfig, w: JudgeWiring, opts: { requireEnabled?: boolean } = {}): Judge {
  const store = new JudgeStore(w.store.sql);
  const calibration = async () => calibrate(await store.labels.labelPairs(), cfg.minKappa, cfg.minLabels);
  const refreshKappa = async () => {
    const c = await calibration();
    for (const f of c.fields) {
      if (f.kappa === null) w.metrics.judgeKappa.remove({ field: f.field });
      else w.metrics.judgeKappa.set({ field: f.field }, f.kappa);
    }
    return c;
  };
  const judge: Judge = { config: cfg, store, calibration, refreshKappa };
  const active = opts.requireEnabled === false ? Boolean(cfg.model) : cfg.enabled;
  if (!active) return judge;
  const policy = policyOf(cfg);
  judge.sink = new TrajectorySink({
    project: cfg.project,
    policy,
    store,
    now: w.now,
    redactor: w.redactor,
    onRedactionFailure: () => w.metrics.redactionFailures.inc({ what: 'trajectory' }),
  });
  const client =
    w.client ??
    new OpenAIJudgeClient({
      baseUrl: cfg.baseUrl,
      model: cfg.model,
      ...(cfg.apiKey ? { apiKey: cfg.apiKey } : {}),
      timeoutMs: cfg.timeoutMs,
      maxRetries: cfg.maxRetries,
      maxRetryWaitMs: cfg.maxRetryWaitMs,
      ...(w.signal ? { signal: w.signal } : {}),
    });
  const deps: JudgeJobDeps = {
    store,
    client,
    prompt: loadPrompt(),
    redactor: () => createRedactor(cfg.redact),
    lock: (name, fn) => w.store.runExclusive(name, fn),
    policy,
    idleMs: cfg.idleMs,
    caps: cfg.caps,
    price: cfg.price,
    concurrency: cfg.concurrency,
    now: w.now,
    metrics: metricsPort(w.metrics, w.labels),
    afterRun: async () => void (await refreshKappa()),
    log: w.log,
    ...(w.onVerdict ? { onVerdict: w.onVerdict } : {}),
    ...(w.tracer ? { tracer: w.tracer } : {}),
    ...(w.negativeFeedback ? { negativeFeedback: w.negativeFeedback } : {}),
  };
  judge.job = new JudgeJob(deps);
  return judge;
}

export { KAPPA_FIELDS };
