/**
 * Wires the Langfuse source into a running toolwatch: the client adapter, the state store, the
 * sync job (langfuse.schedule, one replica at a time through store.runExclusive) and, with
 * langfuse.write_scores, the score sender on its own interval so write-back never holds up a sync.
 */
import type { Logger } from 'pino';
import type { Component } from '../../jobs/lifecycle.js';
import type { Metrics } from '../../metrics/registry.js';
import type { SpanConsumer } from '../../pipeline/ports.js';
import type { Store } from '../../store/store.js';
import type { Tracer } from '../../telemetry/tracing.js';
import type { LangfuseApi } from './api.js';
import type { LangfuseConfig } from './config.js';
import { fromJudgeVerdict, LangfuseScoreWriter, type JudgeVerdictLike, type VerdictForLangfuse } from './scores.js';
import { LangfuseFeedbackPull, type FeedbackSink } from './feedback.js';
import { LangfuseSource } from './source.js';
import { LangfuseState } from './state.js';

/** Test seams: any of them replaces the production adapter. */
export interface LangfuseOverrides {
  api?: LangfuseApi;
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface LangfuseSourceInfo {
  name: 'langfuse';
  enabled: true;
  baseUrl: string;
  mode: 'v2' | 'v1';
  watermark: string | null;
  lagSeconds: number | null;
  lastError: string | null;
  lastErrorAt: string | null;
  lastSuccessAt: string | null;
  counts: { observations: number; calls: number; windows: number };
  writeScores: boolean;
  pendingScores: number;
  /** The user-feedback scores pull (absent when langfuse.feedback_scores is empty). */
  feedback?: { scoreNames: string[]; mode: 'v3' | 'v2'; watermark: string | null; scores: number };
}

/** A component (src/jobs/lifecycle.ts): started, it schedules the pull, the feedback pull and the score write-back; interrupted, it wakes any sleeping retry. */
export interface LangfuseRuntime extends Component {
  source: LangfuseSource;
  /** Present when langfuse.feedback_scores names any score. */
  feedback?: LangfuseFeedbackPull;
  scores: LangfuseScoreWriter;
  state: LangfuseState;
  /** For the judge: queue a verdict's scores (no-op unless write_scores). */
  writeVerdictScores(v: VerdictForLangfuse): Promise<number>;
  /** The judge's onVerdict hook. */
  onJudgeVerdict(rec: JudgeVerdictLike): Promise<void>;
  /** Seconds behind (now − watermark), for toolwatch_source_lag_seconds. */
  lagSeconds(): number | undefined;
  info(): Promise<LangfuseSourceInfo>;
}

export interface LangfuseWiring {
  config: LangfuseConfig;
  store: Store;
  pipeline: SpanConsumer;
  metrics: Metrics;
  log: Logger;
  /** Where user-feedback scores go (the feedback service); absent: they are not read. */
  feedback?: FeedbackSink;
  overrides?: LangfuseOverrides;
  /** toolwatch's own tracing; undefined when off. */
  tracer?: Tracer;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export async function createLangfuse(w: LangfuseWiring): Promise<LangfuseRuntime | undefined> {
  const { config: cfg, metrics, log } = w;
  if (!cfg.enabled) return undefined;
  const aborter = new AbortController();
  // The client adapter (and @langfuse/client under it) loads only here: an instance without Langfuse
  // never pays for it (≈ 6 MB of resident memory and its share of start-up).
  const api =
    w.overrides?.api ??
    (await import('./client.js')).createLangfuseApi({
      baseUrl: cfg.baseUrl,
      publicKey: cfg.publicKey,
      secretKey: cfg.secretKey,
      requestTimeoutMs: cfg.requestTimeoutMs,
      signal: aborter.signal,
    });
  const clock = w.overrides?.clock ?? Date.now;
  const sleep =
    w.overrides?.sleep ??
    ((ms: number) =>
      new Promise<void>((resolve, reject) => {
        if (aborter.signal.aborted) return reject(new Error('langfuse: stopping'));
        const t = setTimeout(resolve, ms);
        t.unref();
        aborter.signal.addEventListener('abort', () => (clearTimeout(t), reject(new Error('langfuse: stopping'))), {
          once: true,
        });
      }));
  const state = await LangfuseState.open(w.store.sql, clock());
  const source = new LangfuseSource(
    {
      api,
      state,
      ingest: (facts, spanCount, extend, parent) =>
        w.pipeline.ingestFacts(facts, 'langfuse', spanCount, extend, parent),
      ...(w.tracer ? { tracer: w.tracer } : {}),
      clock,
      sleep,
      log,
      onObservations: (type, n) => metrics.langfuseObservations.inc({ type }, n),
      onDuplicates: (n) => metrics.langfuseDuplicates.inc(n),
      onRequest: (endpoint, status) => metrics.langfuseRequests.inc({ endpoint, status }),
    },
    {
      overlapMs: cfg.overlapMs,
      lagMs: cfg.lagMs,
      pageSize: cfg.pageSize,
      maxWindowMs: cfg.maxWindowMs,
      initialLookbackMs: cfg.initialLookbackMs,
      maxAttempts: cfg.maxAttempts,
      service: cfg.service,
      writeScores: cfg.writeScores,
      maxSeen: cfg.maxSeen,
    },
  );
  const scores = new LangfuseScoreWriter(
    {
      api,
      state,
      clock,
      log,
      onScore: (status) => metrics.langfuseScores.inc({ status }),
      onRequest: (status) => metrics.langfuseRequests.inc({ endpoint: 'scores', status }),
    },
    { batchSize: cfg.scoresPerFlush, maxAttempts: cfg.scoreMaxAttempts },
  );

  const feedback =
    w.feedback && cfg.feedbackScores.length
      ? new LangfuseFeedbackPull(
          {
            api,
            state,
            feedback: w.feedback,
            clock,
            sleep,
            log,
            onRequest: (endpoint, status) => metrics.langfuseRequests.inc({ endpoint, status }),
          },
          {
            names: cfg.feedbackScores,
            numeric: cfg.feedbackNumeric,
            overlapMs: cfg.overlapMs,
            lagMs: cfg.lagMs,
            maxWindowMs: cfg.maxWindowMs,
            initialLookbackMs: cfg.initialLookbackMs,
            maxAttempts: cfg.maxAttempts,
            service: cfg.service,
          },
        )
      : undefined;
  const feedbackInfo = async () => {
    const f = await state.feedbackState();
    return {
      scoreNames: cfg.feedbackScores,
      mode: feedback?.apiMode ?? f.mode,
      watermark: iso(f.watermarkMs),
      scores: f.scores,
    };
  };
  const lagSeconds = () => {
    const wm = source.watermarkMs;
    return wm === null ? undefined : Math.max(0, (clock() - wm) / 1000);
  };
  return {
    name: 'langfuse',
    start(scheduler) {
      scheduler.every('langfuse', cfg.schedule, async () => {
        const res = await w.store.runExclusive('langfuse', () => source.runOnce());
        if (res.ran && res.value.windows > 0) log.info({ ...res.value, source: 'langfuse' }, 'langfuse: synced');
      });
      if (feedback) {
        scheduler.every('langfuse-feedback', cfg.schedule, async () => {
          const res = await w.store.runExclusive('langfuse-feedback', () => feedback.runOnce());
          if (res.ran && res.value.taken > 0)
            log.info({ ...res.value, source: 'langfuse' }, 'langfuse: feedback scores read');
        });
      }
      if (cfg.writeScores)
        scheduler.interval('langfuse-scores', cfg.scoresEveryMs, () =>
          w.store.runExclusive('langfuse-scores', () => scores.flush()),
        );
    },
    interrupt: () => aborter.abort(),
    source,
    ...(feedback ? { feedback } : {}),
    scores,
    state,
    writeVerdictScores: (v) => (cfg.writeScores ? scores.writeVerdictScores(v) : Promise.resolve(0)),
    async onJudgeVerdict(rec) {
      const v = fromJudgeVerdict(rec);
      if (v && cfg.writeScores) await scores.writeVerdictScores(v);
    },
    lagSeconds,
    async info() {
      const s = await state.load();
      return {
        name: 'langfuse',
        enabled: true,
        baseUrl: cfg.baseUrl,
        mode: s.mode === 'v1' || source.apiMode === 'v1' ? 'v1' : 'v2',
        watermark: iso(s.watermarkMs),
        lagSeconds: s.watermarkMs === null ? null : Math.max(0, (clock() - s.watermarkMs) / 1000),
        lastError: s.lastError,
        lastErrorAt: iso(s.lastErrorMs),
        lastSuccessAt: iso(s.lastSuccessMs),
        counts: { observations: s.observations, calls: s.calls, windows: s.windows },
        writeScores: cfg.writeScores,
        pendingScores: await state.pendingScores(),
        ...(feedback ? { feedback: await feedbackInfo() } : {}),
      };
    },
  };
}
