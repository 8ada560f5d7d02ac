/**
 * How much checking one batch may cost (the `check` section of the config). Validation runs on the
 * event loop, so whatever a span can make expensive is bounded before it runs: the size and the
 * nesting of the arguments validated, and the schema bytes compiled — per batch, and per ingest
 * token over time (a token bucket by token name, so fresh schemas sent batch after batch cannot
 * keep the process compiling either). What is over a bound is `unvalidated` with a reason, never
 * waited for.
 */
/** The config defaults (src/config.ts): what a process without a `check` section runs with. */
export const DEFAULT_CHECK_LIMITS = Object.freeze({
    maxArgumentBytes: 1024 * 1024,
    maxArgumentDepth: 64,
    compileBytesPerBatch: 64 * 1024,
    compileBytesPerTokenPerMinute: 512 * 1024,
    validationTimePerBatchMs: 500,
});
/** Unlimited: for callers that are not fed by spans (`toolwatch eval` over a suite's own tools). */
export const UNLIMITED_COMPILES = { take: () => 'ok' };
const MINUTE_MS = 60_000;
export class CompileBudget {
    limits;
    now;
    buckets = new Map();
    /** `now` must be monotonic: a wall-clock jump must neither refill nor drain a bucket. */
    constructor(limits, now = () => performance.now()) {
        this.limits = limits;
        this.now = now;
    }
    /** One batch's allowance; `token`: the ingest token's name (none: the per-batch bound alone). */
    forBatch(token) {
        let left = this.limits.compileBytesPerBatch;
        const bucket = token === undefined ? undefined : this.bucket(token);
        return {
            take: (bytes) => {
                if (bytes > this.limits.compileBytesPerBatch)
                    return 'too_large';
                if (bytes > left || (bucket && bytes > bucket.level))
                    return 'budget';
                left -= bytes;
                if (bucket)
                    bucket.level -= bytes;
                return 'ok';
            },
        };
    }
    /** The token's bucket, refilled for the time since it was last asked (names come from the config: few). */
    bucket(token) {
        const perMinute = this.limits.compileBytesPerTokenPerMinute;
        const now = this.now();
        let b = this.buckets.get(token);
        if (!b)
            this.buckets.set(token, (b = { level: perMinute, atMs: now }));
        else {
            b.level = Math.min(perMinute, b.level + ((now - b.atMs) / MINUTE_MS) * perMinute);
            b.atMs = now;
        }
        return b;
    }
}
/** Nesting depth of a JSON value (a scalar is 0, `{}` is 1), stopping as soon as it passes `max`. */
export function deeperThan(value, max) {
    // An explicit stack: the value may be nested far deeper than the call stack allows.
    const stack = [[value, 0]];
    while (stack.length > 0) {
        const [v, depth] = stack.pop();
        if (v === null || typeof v !== 'object')
            continue;
        if (depth + 1 > max)
            return true;
        const children = Array.isArray(v) ? v : Object.values(v);
        for (const c of children)
            if (c !== null && typeof c === 'object')
                stack.push([c, depth + 1]);
    }
    return false;
}
//# sourceMappingURL=budget.js.map