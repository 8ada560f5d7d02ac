/**
 * How much checking one batch may cost (the `check` section of the config). Validation runs on the
 * event loop, so whatever a span can make expensive is bounded before it runs: the size and the
 * nesting of the arguments validated, and the schema bytes compiled — per batch, and per ingest
 * token over time (a token bucket by token name, so fresh schemas sent batch after batch cannot
 * keep the process compiling either). What is over a bound is `unvalidated` with a reason, never
 * waited for.
 */

export interface CheckLimits {
  /** Arguments larger than this (UTF-8 bytes of their JSON) are `unvalidated` (`too_large`). */
  maxArgumentBytes: number;
  /** Arguments nested deeper than this (the object itself is 1) are `unvalidated` (`too_deep`). */
  maxArgumentDepth: number;
  /** Schema bytes (canonical JSON) one batch may compile; past it calls are `unvalidated` (`budget`). */
  compileBytesPerBatch: number;
  /** Schema bytes one ingest token may compile per minute (a bucket holding one minute's worth). */
  compileBytesPerTokenPerMinute: number;
  /** How long one batch's calls may take validating; a call still running then is `unvalidated` (`budget`). */
  validationTimePerBatchMs: number;
}

/** The bounds one call is checked under. */
export type ArgumentLimits = Pick<CheckLimits, 'maxArgumentBytes' | 'maxArgumentDepth'>;

/** The config defaults (src/config.ts): what a process without a `check` section runs with. */
export const DEFAULT_CHECK_LIMITS: CheckLimits = Object.freeze({
  maxArgumentBytes: 1024 * 1024,
  maxArgumentDepth: 64,
  compileBytesPerBatch: 64 * 1024,
  compileBytesPerTokenPerMinute: 512 * 1024,
  validationTimePerBatchMs: 500,
});

/** Whether a schema of this many bytes may be compiled now. */
export type CompileGrant = 'ok' | 'budget' | 'too_large';

/** What one batch may still compile; asked before every compilation, charged only when it runs. */
export interface CompileAllowance {
  take(bytes: number): CompileGrant;
}

/** Unlimited: for callers that are not fed by spans (`toolwatch eval` over a suite's own tools). */
export const UNLIMITED_COMPILES: CompileAllowance = { take: () => 'ok' };

interface Bucket {
  level: number;
  atMs: number;
}

const MINUTE_MS = 60_000;

export class CompileBudget {
  private readonly buckets = new Map<string, Bucket>();

  /** `now` must be monotonic: a wall-clock jump must neither refill nor drain a bucket. */
  constructor(
    private readonly limits: Pick<CheckLimits, 'compileBytesPerBatch' | 'compileBytesPerTokenPerMinute'>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** One batch's allowance; `token`: the ingest token's name (none: the per-batch bound alone). */
  forBatch(token?: string): CompileAllowance {
    let left = this.limits.compileBytesPerBatch;
    const bucket = token === undefined ? undefined : this.bucket(token);
    return {
      take: (bytes) => {
        if (bytes > this.limits.compileBytesPerBatch) return 'too_large';
        if (bytes > left || (bucket && bytes > bucket.level)) return 'budget';
        left -= bytes;
        if (bucket) bucket.level -= bytes;
        return 'ok';
      },
    };
  }

  /** The token's bucket, refilled for the time since it was last asked (names come from the config: few). */
  private bucket(token: string): Bucket {
    const perMinute = this.limits.compileBytesPerTokenPerMinute;
    const now = this.now();
    let b = this.buckets.get(token);
    if (!b) this.buckets.set(token, (b = { level: perMinute, atMs: now }));
    else {
      b.level = Math.min(perMinute, b.level + ((now - b.atMs) / MINUTE_MS) * perMinute);
      b.atMs = now;
    }
    return b;
  }
}

/**
 * Nesting depth of a JSON value (a scalar is 0, `{}` is 1) is over `max`. Recursive, stopping as soon
 * as it passes `max`: the value may be nested far deeper than the call stack allows, but the walk
 * never goes more than `max` (the config allows at most 1,000) levels down, and allocates nothing
 * (this runs for every checked call; an explicit stack cost three arrays per call).
 */
export function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperThan(value[i], max - 1)) return true;
    return false;
  }
  for (const k in value)
    if (Object.hasOwn(value, k) && deeperThan((value as Record<string, unknown>)[k], max - 1)) return true;
  return false;
}
