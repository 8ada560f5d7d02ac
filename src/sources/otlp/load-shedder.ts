/**
 * Load shedding when the CPU, not the store, is the bottleneck: `ingest.max_pending_batches` only
 * counts batches waiting for the store, so under a flood of requests the event loop falls behind,
 * every answer comes later, exporters time out and resend what is still being processed. Here a new
 * batch is refused at once (503 + Retry-After, before its body is read or decoded) while too many
 * batches are in flight or the event loop lags too far behind.
 *
 * The lag is sampled with a timer (it fires late by as much as the loop is behind) and smoothed,
 * so one long garbage-collection pause does not shed, a sustained overload does.
 */

export interface LoadShedderOptions {
  /** Batches being received, decoded or written at once; 0 = no limit. */
  maxInflight: number;
  /** Smoothed event-loop delay beyond which new batches are refused; 0 = never. */
  maxLoopDelayMs: number;
  /** How often the delay is sampled. */
  sampleMs?: number;
}

export type ShedReason = 'inflight' | 'event_loop_delay';

export class LoadShedder {
  inflight = 0;
  /** Exponentially smoothed event-loop delay, ms. */
  loopDelayMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly sampleMs: number;

  constructor(private readonly opts: LoadShedderOptions) {
    this.sampleMs = opts.sampleMs ?? 50;
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

  /** Why a new batch (already counted in `inflight`) must be refused now, or null. */
  shed(): ShedReason | null {
    if (this.opts.maxInflight > 0 && this.inflight > this.opts.maxInflight) return 'inflight';
    if (this.opts.maxLoopDelayMs > 0 && this.loopDelayMs > this.opts.maxLoopDelayMs) return 'event_loop_delay';
    return null;
  }
}
