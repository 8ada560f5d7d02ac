/**
 * Deterministic trajectory sampling. A trace's position u = hash(project, trace id) in [0, 1) is
 * the same on every replica and every run; a trace is sampled iff u < p. Because the same u is
 * compared with every rate, samples are nested by construction: a trace in the 2% sample is in the
 * 5% sample too. Pure: no clock, no I/O.
 */
import crypto from 'node:crypto';

const TWO_POW_64 = 2 ** 64;

// One-shot hashing (Node ≥ 20.12) costs about half of a Hash object's; every trace of every batch is
// hashed while the judge is on. The digest of the joined UTF-8 text is the same either way. As hex:
// no Buffer (an ArrayBuffer each, for V8 to sweep) and no BigInt — 0.47 µs a trace against 1.1–1.3.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex = (text: string): string =>
  oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');

/**
 * First 8 bytes of SHA-256(project NUL trace id) as an unsigned integer / 2^64. The two 32-bit halves
 * added as doubles round the 64-bit value to 53 bits as Number(BigInt) does (to nearest, ties to even).
 */
export function samplePosition(project: string, traceId: string): number {
  const hex = sha256Hex(`${project}\u0000${traceId.toLowerCase()}`);
  const u = (Number.parseInt(hex.slice(0, 8), 16) * 2 ** 32 + Number.parseInt(hex.slice(8, 16), 16)) / TWO_POW_64;
  // The sum is rounded to 53 bits; a value that rounds up to exactly 1 stays inside [0, 1).
  return u < 1 ? u : 1 - Number.EPSILON;
}

export interface SamplingPolicy {
  sampleRate: number;
  serviceRates: Readonly<Record<string, number>>;
  /** A separate rate for trajectories with structural failures; undefined = none. */
  failedRate?: number;
  /** A separate rate for trajectories with negative user feedback; undefined = none. */
  feedbackRate?: number;
}

export function baseRate(policy: SamplingPolicy, service: string): number {
  return policy.serviceRates[service] ?? policy.sampleRate;
}

/**
 * The inclusion probability of a trajectory: the largest rate of the strata it belongs to (base;
 * failed when it has a structural failure; feedback when it got negative user feedback). The trace
 * is kept if any rule keeps it, and since every rule compares the same u, "any" is the largest rate.
 */
export function inclusionProbability(
  policy: SamplingPolicy,
  service: string,
  hasFailure: boolean,
  negativeFeedback = false,
): number {
  let p = baseRate(policy, service);
  if (hasFailure && policy.failedRate !== undefined) p = Math.max(p, policy.failedRate);
  if (negativeFeedback && policy.feedbackRate !== undefined) p = Math.max(p, policy.feedbackRate);
  return p;
}

export function isSampled(u: number, probability: number): boolean {
  return u < probability;
}

/**
 * The largest probability any trajectory can get. At ingest a trace with u at or above it can never
 * be sampled and is skipped outright; below it the trace is a candidate whose steps are kept until
 * it completes, because a later span may still add a failure or reveal its service.
 */
export function maxProbability(policy: SamplingPolicy): number {
  return Math.max(
    policy.sampleRate,
    policy.failedRate ?? 0,
    policy.feedbackRate ?? 0,
    ...Object.values(policy.serviceRates),
  );
}

/** Inverse-probability weight recorded with each verdict (Horvitz–Thompson). */
export function weightOf(probability: number): number {
  return probability > 0 ? 1 / probability : 0;
}
