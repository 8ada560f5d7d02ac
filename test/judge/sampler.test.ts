import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inclusionProbability, isSampled, maxProbability, samplePosition, weightOf } from '../../src/judge/sampler.js';

const traceIds = Array.from({ length: 20_000 }, (_, i) => i.toString(16).padStart(32, '0'));

describe('sampler', () => {
  it('is deterministic: same project and trace id, same position, in [0, 1)', () => {
    const id = '0af7651916cd43dd8448eb211c80319c';
    const u = samplePosition('default', id);
    expect(samplePosition('default', id)).toBe(u);
    expect(samplePosition('default', id.toUpperCase())).toBe(u); // hex ids in any case
    expect(u).toBeGreaterThanOrEqual(0);
    expect(u).toBeLessThan(1);
    // Another project draws an independent sample.
    expect(samplePosition('other', id)).not.toBe(u);
  });

  it('pins the hash (first 8 bytes of SHA-256, / 2^64) so replicas and versions agree', () => {
    // sha256("default\0" + id) computed independently; a change here would reshuffle every sample.
    const u = samplePosition('default', '00000000000000000000000000000001');
    expect(u).toBe(0.16789454872028658);
  });

  it('hashes project NUL trace id as one text: the same digest as a Hash object fed the three parts', () => {
    for (const project of ['default', 'équipe-🚀']) {
      for (const id of [...traceIds.slice(0, 50), 'AbCdEf0123456789abcdef0123456789', 'lf-trace-ü']) {
        const d = createHash('sha256').update(project).update('\u0000').update(id.toLowerCase()).digest();
        expect(samplePosition(project, id)).toBe(Number(d.readBigUInt64BE(0)) / 2 ** 64);
      }
    }
  });

  it("rounds the digest's first 64 bits to a double as a BigInt conversion does, trace after trace", () => {
    // The position is read as two 32-bit halves added as doubles: the same rounding as Number(BigInt).
    for (const id of traceIds) {
      const d = createHash('sha256').update(`default\u0000${id}`).digest();
      expect(samplePosition('default', id)).toBe(Number(d.readBigUInt64BE(0)) / 2 ** 64);
    }
  });

  it('is nested: every trace sampled at 2% is sampled at 5%, and the rates come out right', () => {
    const at = (p: number) => new Set(traceIds.filter((id) => isSampled(samplePosition('default', id), p)));
    const two = at(0.02);
    const five = at(0.05);
    for (const id of two) expect(five.has(id)).toBe(true);
    // Binomial(20000, p): 4 standard deviations.
    expect(Math.abs(two.size - 400)).toBeLessThan(4 * Math.sqrt(20_000 * 0.02 * 0.98));
    expect(Math.abs(five.size - 1000)).toBeLessThan(4 * Math.sqrt(20_000 * 0.05 * 0.95));
  });

  it('applies per-service rates and failed_rate as the larger probability, with inverse weights', () => {
    const policy = { sampleRate: 0.02, serviceRates: { checkout: 0.1 }, failedRate: 0.25 };
    expect(inclusionProbability(policy, 'search', false)).toBe(0.02);
    expect(inclusionProbability(policy, 'checkout', false)).toBe(0.1);
    expect(inclusionProbability(policy, 'search', true)).toBe(0.25);
    expect(inclusionProbability({ sampleRate: 0.5, serviceRates: {}, failedRate: 0.25 }, 's', true)).toBe(0.5);
    expect(inclusionProbability({ sampleRate: 0.02, serviceRates: {} }, 's', true)).toBe(0.02);
    expect(maxProbability(policy)).toBe(0.25);
    expect(weightOf(0.25)).toBe(4);
  });
});
