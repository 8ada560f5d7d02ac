/**
 * The Langfuse source: an incremental pull of observations through the public API into the same
 * pipeline as OTLP (source="langfuse").
 *
 * Guarantees, and how:
 * - No gaps: time windows are closed ([watermark − overlap, now − lag), at most `maxWindowMs` each)
 *   and paged to their end; the watermark is persisted only after a window is fully processed, so a
 *   crash or a failed request mid-window makes the next run read the same window again.
 * - No duplicates: every observation id taken is recorded in the same transaction as its counts
 *   (a batch extension), remembered in memory for the overlap and reloaded from the store when a
 *   process starts, so re-reading a page, the overlap or a crashed window counts nothing twice.
 * - Late arrivals: an observation that shows up in Langfuse after its window was synced, but
 *   within the overlap, is read by the next window.
 * - Rate limits: requests are retried (Retry-After when sent, else backoff: 1 s, 2 s, 4 s … 60 s); when
 *   attempts run out the run ends with the watermark where it was — the pull pauses, never skips.
 * - v2 → v1: a 404 from GET /api/public/v2/observations (an older self-hosted server) switches to
 *   the page-based legacy endpoint for the rest of the process; the window restarts in v1 mode and
 *   what v2 pages already delivered is deduplicated.
 */
import type { Logger } from 'pino';
import type { CheckedCall, SpanFacts } from '../../model.js';
import { observationToFacts, type LangfuseObservation } from '../../normalize/langfuse.js';
import type { IngestSummary } from '../../pipeline/ports.js';
import type { BatchExtension } from '../../store/store.js';
import { endSpan, type Span, startChild, type Tracer } from '../../telemetry/tracing.js';
import { LangfuseHttpError, V2_EXPAND_METADATA, V2_FIELDS, type LangfuseApi } from './api.js';
import { langfuseRequest, type ReadEndpoint } from './request.js';
import { outcomeScores } from './scores.js';
import type { ApiMode, LangfuseState, SeenId, SourceState } from './state.js';

export type IngestFn = (
  facts: readonly SpanFacts[],
  spanCount: number,
  extend: (calls: readonly CheckedCall[]) => readonly BatchExtension[],
  /** The sync window's span, parent of the batch's (telemetry on). */
  parent?: Span,
) => Promise<IngestSummary>;

export interface LangfuseSourceDeps {
  api: LangfuseApi;
  state: LangfuseState;
  /** The pipeline, bound to source 'langfuse'. */
  ingest: IngestFn;
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
  log: Pick<Logger, 'info' | 'warn' | 'debug'>;
  onObservations?: (type: string, n: number) => void;
  onDuplicates?: (n: number) => void;
  onRequest?: (endpoint: ReadEndpoint, status: string) => void;
  /** toolwatch's own tracing (a `langfuse sync window` span per window); undefined when off. */
  tracer?: Tracer;
}

export interface LangfuseSourceOptions {
  overlapMs: number;
  lagMs: number;
  pageSize: number;
  maxWindowMs: number;
  /** Where the very first window starts, before any watermark exists. */
  initialLookbackMs: number;
  /** Attempts per request before the run gives up (and the next run resumes). */
  maxAttempts: number;
  /** Service label for observations whose metadata names none. */
  service: string;
  writeScores: boolean;
  /** Upper bound on remembered ids (overlap + window); past it the oldest are forgotten. */
  maxSeen: number;
}

export interface RunResult {
  windows: number;
  observations: number;
  duplicates: number;
  calls: number;
}

const KNOWN_TYPES = new Set([
  'GENERATION',
  'TOOL',
  'AGENT',
  'SPAN',
  'EVENT',
  'CHAIN',
  'RETRIEVER',
  'EVALUATOR',
  'EMBEDDING',
  'GUARDRAIL',
]);
const typeLabel = (t: unknown): string =>
  KNOWN_TYPES.has(String(t).toUpperCase()) ? String(t).toUpperCase() : 'other';

export class LangfuseSource {
  private mode: ApiMode = 'v2';
  private state: SourceState | undefined;
  /** Observation id → start time, for the overlap and the window in progress. */
  private seen: Map<string, number> | undefined;
  /** The span of the window in progress (telemetry on). */
  private windowSpan: Span | undefined;

  constructor(
    private readonly deps: LangfuseSourceDeps,
    readonly opts: LangfuseSourceOptions,
  ) {}

  get apiMode(): ApiMode {
    return this.mode;
  }

  /** The persisted watermark as last loaded or advanced (null before the first window). */
  get watermarkMs(): number | null {
    return this.state?.watermarkMs ?? null;
  }

  /** Syncs every closed window up to now − lag. Throws (after recording it) when a window could not finish. */
  async runOnce(): Promise<RunResult> {
    const { deps, opts } = this;
    const result: RunResult = { windows: 0, observations: 0, duplicates: 0, calls: 0 };
    try {
      this.state ??= await deps.state.load();
      const end = deps.clock() - opts.lagMs;
      let wm = this.state.watermarkMs;
      while ((wm ?? -Infinity) < end) {
        const first = wm === null;
        const from = first ? end - opts.initialLookbackMs : wm! - opts.overlapMs;
        const to = Math.min(end, (first ? from : wm!) + opts.maxWindowMs);
        if (to <= from) break;
        this.seen ??= await deps.state.seenSince(from);
        const before = { ...result };
        this.windowSpan = deps.tracer
          ? startChild(deps.tracer, 'langfuse sync window', undefined, {
              'toolwatch.langfuse.from': new Date(from).toISOString(),
              'toolwatch.langfuse.to': new Date(to).toISOString(),
            })
          : undefined;
        const keepSinceMs = to - opts.overlapMs;
        let failure: { err: unknown } | undefined;
        try {
          await this.syncWindow(from, to, result);
          await deps.state.completeWindow({ watermarkMs: to, mode: this.mode, nowMs: deps.clock(), keepSinceMs });
        } catch (err) {
          failure = { err };
          throw err;
        } finally {
          const span = this.windowSpan;
          this.windowSpan = undefined;
          if (span) endSpan(span.setAttributes(windowAttributes(this.mode, before, result)), failure?.err);
        }
        for (const [id, start] of this.seen) if (start < keepSinceMs) this.seen.delete(id);
        this.state.watermarkMs = wm = to;
        result.windows++;
      }
      return result;
    } catch (err) {
      const message =
        err instanceof LangfuseHttpError ? `${err.message} (${err.status})` : String((err as Error)?.message ?? err);
      await deps.state.recordError(message.slice(0, 500), this.mode, deps.clock()).catch(() => undefined);
      if (this.state) (this.state.lastError = message), (this.state.lastErrorMs = deps.clock());
      throw err;
    }
  }

  /** Pages one window to its end; TOOL observations go last, after the generations that proposed their calls. */
  private async syncWindow(from: number, to: number, result: RunResult): Promise<void> {
    const heldTools = new Map<string, LangfuseObservation>();
    const take = async (page: readonly LangfuseObservation[]) => {
      const fresh: LangfuseObservation[] = [];
      const inPage = new Set<string>();
      let dups = 0;
      for (const o of page) {
        if (typeof o?.id !== 'string' || this.seen!.has(o.id) || inPage.has(o.id) || heldTools.has(o.id)) {
          dups++;
          continue;
        }
        inPage.add(o.id);
        // Newest first puts a tool before the generation that proposed it: hold tools to the window's
        // end, so the proposal (with its offered tools) is what gets classified.
        if (String(o.type).toUpperCase() === 'TOOL') heldTools.set(o.id, o);
        else fresh.push(o);
      }
      if (dups) {
        result.duplicates += dups;
        this.deps.onDuplicates?.(dups);
      }
      await this.ingestObservations(fresh, from, result);
    };

    for (;;) {
      try {
        if (this.mode === 'v2') await this.pagesV2(from, to, take);
        else await this.pagesV1(from, to, take);
        break;
      } catch (err) {
        if (this.mode === 'v2' && err instanceof LangfuseHttpError && err.status === 404) {
          this.deps.log.warn(
            'langfuse: GET /api/public/v2/observations answered 404; using the legacy /api/public/observations from now on',
          );
          this.mode = 'v1';
          continue; // the same window again, page-based; what v2 delivered is deduplicated
        }
        throw err;
      }
    }
    const tools = [...heldTools.values()];
    for (let i = 0; i < tools.length; i += this.opts.pageSize)
      await this.ingestObservations(tools.slice(i, i + this.opts.pageSize), from, result);
  }

  private async pagesV2(
    from: number,
    to: number,
    take: (page: readonly LangfuseObservation[]) => Promise<void>,
  ): Promise<void> {
    const q = {
      fromStartTime: new Date(from).toISOString(),
      toStartTime: new Date(to).toISOString(),
      limit: this.opts.pageSize,
      fields: V2_FIELDS,
      expandMetadata: V2_EXPAND_METADATA,
    };
    let cursor: string | undefined;
    for (;;) {
      const page = await this.request('v2_observations', () =>
        this.deps.api.observationsV2(cursor ? { ...q, cursor } : q),
      );
      await take(page.data);
      // A repeated cursor would loop forever: treat it as the end.
      if (!page.cursor || page.cursor === cursor || page.data.length === 0) return;
      cursor = page.cursor;
    }
  }

  private async pagesV1(
    from: number,
    to: number,
    take: (page: readonly LangfuseObservation[]) => Promise<void>,
  ): Promise<void> {
    const q = {
      fromStartTime: new Date(from).toISOString(),
      toStartTime: new Date(to).toISOString(),
      limit: this.opts.pageSize,
    };
    for (let page = 1; ; page++) {
      const res = await this.request('v1_observations', () => this.deps.api.observationsV1({ ...q, page }));
      await take(res.data);
      if (page >= res.totalPages || res.data.length === 0) return;
    }
  }

  private request<T>(endpoint: 'v2_observations' | 'v1_observations', fn: () => Promise<T>): Promise<T> {
    const { deps } = this;
    return langfuseRequest(endpoint, fn, {
      maxAttempts: this.opts.maxAttempts,
      sleep: deps.sleep,
      log: deps.log,
      ...(deps.onRequest ? { onRequest: deps.onRequest } : {}),
    });
  }

  /** One pipeline batch; the ids taken (and owed scores) commit in the same transaction as the counts. */
  private async ingestObservations(
    obs: readonly LangfuseObservation[],
    from: number,
    result: RunResult,
  ): Promise<void> {
    if (obs.length === 0) return;
    const { deps, opts } = this;
    const facts: SpanFacts[] = [];
    const ids: SeenId[] = [];
    for (const o of obs) {
      const f = observationToFacts(o, { service: opts.service });
      if (f) facts.push(f);
      const start = Date.parse(o.startTime);
      ids.push({ id: o.id, startMs: Number.isFinite(start) ? start : from });
    }
    const now = deps.clock();
    const summary = await deps.ingest(
      facts,
      obs.length,
      (calls) => [deps.state.batchExtension(ids, calls.length, opts.writeScores ? outcomeScores(calls) : [], now)],
      this.windowSpan,
    );
    for (const s of ids) this.seen!.set(s.id, s.startMs);
    while (this.seen!.size > opts.maxSeen) this.seen!.delete(this.seen!.keys().next().value!);
    const byType = new Map<string, number>();
    for (const o of obs) byType.set(typeLabel(o.type), (byType.get(typeLabel(o.type)) ?? 0) + 1);
    for (const [t, n] of byType) deps.onObservations?.(t, n);
    result.observations += obs.length;
    result.calls += summary.calls;
    if (this.state) (this.state.observations += obs.length), (this.state.calls += summary.calls);
  }
}

/** The `langfuse sync window` span's attributes: what this window read and counted. */
function windowAttributes(mode: ApiMode, before: RunResult, after: RunResult): Record<string, string | number> {
  return {
    'toolwatch.langfuse.api': mode,
    'toolwatch.langfuse.observations': after.observations - before.observations,
    'toolwatch.langfuse.duplicates': after.duplicates - before.duplicates,
    'toolwatch.calls': after.calls - before.calls,
  };
}
