/**
 * Load shedding when the CPU, not the store, is the bottleneck: `ingest.max_pending_batches` only
 * counts batches waiting for the store, so under a flood of requests the event loop falls behind,
 * every answer comes later, exporters time out and resend what is still being processed. Here a
 * batch is refused at once (503 + Retry-After) while too many batches are in flight or the event
 * loop lags too far behind.
 *
 * A batch counts against the shared limit only once its body is in: a client that sends its body a
 * byte a second holds no slot another team's batch needs (body.ts cuts it off after its deadline).
 * What one token may hold at once — bodies being read included — is its share of the slots, so one
 * tenant's slow or numerous connections cannot take them all.
 *
 * The lag is sampled with a timer (it fires late by as much as the loop is behind) and smoothed,
 * so one long garbage-collection pause does not shed, a sustained overload does.
 */

export interface LoadShedderOptions {
  /** Batches decoded or written at once (bodies in); 0 = no limit. */
  maxInflight: number;
  /** Smoothed event-loop delay beyond which new batches are refused; 0 = never. */
  maxLoopDelayMs: number;
  /** The share of maxInflight one token's open batches may take (0–1; default 1). */
  tokenShare?: number;
  /** How often the delay is sampled. */
  sampleMs?: number;
}

/** The `reason` label values of toolwatch_ingest_shed_total (README, Metrics). */
export const SHED_REASONS = ['inflight', 'token_share', 'event_loop_delay'] as const;
export type ShedReason = (typeof SHED_REASONS)[number];

export class LoadShedder {
  /** Batches whose body is in and that are being decoded or written. */
  inflight = 0;
  /** Exponentially smoothed event-loop delay, ms. */
  loopDelayMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly sampleMs: number;
  /** Open batches per token name (from the first byte of the request to its answer). */
  private readonly perToken = new Map<string, number>();
  private readonly perTokenLimit: number;

  constructor(private readonly opts: LoadShedderOptions) {
    this.sampleMs = opts.sampleMs ?? 50;
    const share = opts.tokenShare ?? 1;
    // At least one slot, or a small limit would shut a token out altogether.
    this.perTokenLimit = opts.maxInflight > 0 ? Math.max(1, Math.floor(opts.maxInflight * share)) : 0;
  }

  start(): void {
    if (this.timer || this.opts.maxLoopDelayMs <= 0) return;
    let expected = performance.now() + this.sampleMs;
    this.timer = setInterval(() => {
      const now = performance.now();
      const lag = Math.max(0, now - expected);
      expected = now + this.sampleMs;
      // About half the weight on the last 250 ms of samples.
      this.loopDelayMs = this.loopDelayMs * 0.75 + lag * 0.25;
    }, this.sampleMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A token opens a batch: null when it may (call leaveToken when answered), else why not. */
  enterToken(token: string): ShedReason | null {
    if (this.perTokenLimit <= 0) return null;
    const open = this.perToken.get(token) ?? 0;
    if (open >= this.perTokenLimit) return 'token_share';
    this.perToken.set(token, open + 1);
    return null;
  }

  leaveToken(token: string): void {
    if (this.perTokenLimit <= 0) return;
    const open = (this.perToken.get(token) ?? 1) - 1;
    if (open <= 0) this.perToken.delete(token);
    else this.perToken.set(token, open);
  }

  /** Why a new batch must be refused now (before its body is read, or once it is), or null. */
  shed(): ShedReason | null {
    if (this.opts.maxInflight > 0 && this.inflight >= this.opts.maxInflight) return 'inflight';
    if (this.opts.maxLoopDelayMs > 0 && this.loopDelayMs > this.opts.maxLoopDelayMs) return 'event_loop_delay';
    return null;
  }

  /** A batch whose body is in takes a slot: null when it did (call release when done), else why not. */
  admit(): ShedReason | null {
    const why = this.shed();
    if (!why) this.inflight++;
    return why;
  }

  release(): void {
    this.inflight--;
  }
}
