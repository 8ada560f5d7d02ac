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
 * Work itself is bounded too: at most maxConcurrent batches are decoded and recorded at once, the
 * rest wait in arrival order; one that waited maxQueueDelayMs without starting gets 503 then, and
 * while the oldest waiting batch is past it a new one is refused at once. Past the point the CPU or
 * the store keeps up, every answer would otherwise come later and later — exporters time out and
 * resend what is still being recorded, which is then counted twice — so an overloaded toolwatch
 * answers 503 fast instead of 200 late.
 *
 * The lag is sampled with a timer (it fires late by as much as the loop is behind) and smoothed,
 * so one long garbage-collection pause does not shed, a sustained overload does.
 */
/** The `reason` label values of toolwatch_ingest_shed_total (README, Metrics). */
export const SHED_REASONS = ['inflight', 'token_share', 'event_loop_delay', 'queueing_delay'];
export class LoadShedder {
    opts;
    /** Batches whose body is in and that are being decoded or written. */
    inflight = 0;
    /** Exponentially smoothed event-loop delay, ms. */
    loopDelayMs = 0;
    timer;
    sampleMs;
    /** Open batches per token name (from the first byte of the request to its answer). */
    perToken = new Map();
    perTokenLimit;
    /** Batches being decoded and recorded now. */
    working = 0;
    /** Batches waiting for their turn, oldest first. */
    waiting = [];
    constructor(opts) {
        this.opts = opts;
        this.sampleMs = opts.sampleMs ?? 50;
        const share = opts.tokenShare ?? 1;
        // At least one slot, or a small limit would shut a token out altogether.
        this.perTokenLimit = opts.maxInflight > 0 ? Math.max(1, Math.floor(opts.maxInflight * share)) : 0;
    }
    start() {
        if (this.timer || this.opts.maxLoopDelayMs <= 0)
            return;
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
    stop() {
        if (this.timer)
            clearInterval(this.timer);
        this.timer = undefined;
    }
    /** A token opens a batch: null when it may (call leaveToken when answered), else why not. */
    enterToken(token) {
        if (this.perTokenLimit <= 0)
            return null;
        const open = this.perToken.get(token) ?? 0;
        if (open >= this.perTokenLimit)
            return 'token_share';
        this.perToken.set(token, open + 1);
        return null;
    }
    leaveToken(token) {
        if (this.perTokenLimit <= 0)
            return;
        const open = (this.perToken.get(token) ?? 1) - 1;
        if (open <= 0)
            this.perToken.delete(token);
        else
            this.perToken.set(token, open);
    }
    /** Why a new batch must be refused now (before its body is read, or once it is), or null. */
    shed() {
        if (this.opts.maxInflight > 0 && this.inflight >= this.opts.maxInflight)
            return 'inflight';
        if (this.opts.maxLoopDelayMs > 0 && this.loopDelayMs > this.opts.maxLoopDelayMs)
            return 'event_loop_delay';
        return null;
    }
    /** A batch whose body is in takes a slot: null when it did (call release when done), else why not. */
    admit() {
        const why = this.shed();
        if (!why)
            this.inflight++;
        return why;
    }
    release() {
        this.inflight--;
    }
    /**
     * Resolves when the batch may start its work (null: call endWork when done), or with why it may
     * not: the oldest waiting batch is already past maxQueueDelayMs, or this one waited that long.
     */
    startWork() {
        const max = this.opts.maxConcurrent ?? 0;
        if (max <= 0 || this.working < max) {
            this.working++;
            return Promise.resolve(null);
        }
        const delay = this.opts.maxQueueDelayMs ?? 0;
        const now = performance.now();
        if (delay > 0 && this.waiting.length > 0 && now - this.waiting[0].since > delay)
            return Promise.resolve('queueing_delay');
        return new Promise((resolve) => {
            let timer;
            const entry = {
                since: now,
                start: (why) => {
                    if (timer)
                        clearTimeout(timer);
                    resolve(why);
                },
            };
            this.waiting.push(entry);
            if (delay > 0) {
                timer = setTimeout(() => {
                    const i = this.waiting.indexOf(entry);
                    if (i >= 0)
                        this.waiting.splice(i, 1);
                    resolve('queueing_delay');
                }, delay);
            }
        });
    }
    /** A batch's work is done: the oldest waiting batch starts. */
    endWork() {
        const next = this.waiting.shift();
        if (next)
            next.start(null);
        else
            this.working--;
    }
    /** Batches waiting for their turn now. */
    get queued() {
        return this.waiting.length;
    }
}
//# sourceMappingURL=load-shedder.js.map