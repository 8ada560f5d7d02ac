import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BoundHistogram } from '../../src/metrics/bound-histogram.js';

const buckets = [0.005, 0.1, 1, 5];
const observations: [string, string, number][] = [
  ['shop', 'search', 0.004],
  ['shop', 'search', 0.005], // on a bound: counted in it (le is "less or equal")
  ['shop', 'search', 0.2],
  ['shop', 'refund', 7], // above every bound: only +Inf
  ['support', 'search', 0.1],
  ['shop', 'search', 3.25],
];

/** The same observations through prom-client's own children and through bound ones, each in its own registry. */
async function both() {
  const plainRegistry = new client.Registry();
  const boundRegistry = new client.Registry();
  const config = { name: 'x_seconds', help: 'h', labelNames: ['service', 'tool'] as const, buckets };
  const plain = new client.Histogram({ ...config, registers: [plainRegistry] });
  const bound = new BoundHistogram({ ...config, registers: [boundRegistry] });
  for (const [service, tool, v] of observations) {
    plain.labels({ service, tool }).observe(v);
    bound.bind({ service, tool }).observe(v);
  }
  return { plain, bound, plainRegistry, boundRegistry };
}

describe('BoundHistogram', () => {
  it('exposes exactly what prom-client would for the same observations (text format)', async () => {
    const { plainRegistry, boundRegistry } = await both();
    expect(await boundRegistry.metrics()).toBe(await plainRegistry.metrics());
  });

  it('and in the JSON form (labels merged, le per bucket)', async () => {
    const { plainRegistry, boundRegistry } = await both();
    expect(await boundRegistry.getMetricsAsJSON()).toEqual(await plainRegistry.getMetricsAsJSON());
  });

  it('binds one child per label set, whatever the key order; reset zeroes it and it keeps counting', async () => {
    const { bound, boundRegistry } = await both();
    expect(bound.bind({ tool: 'search', service: 'shop' })).toBe(bound.bind({ service: 'shop', tool: 'search' }));
    bound.reset();
    expect(await boundRegistry.metrics()).not.toContain('x_seconds_count');
    bound.bind({ service: 'shop', tool: 'search' }).observe(0.5);
    expect(await boundRegistry.metrics()).toContain('x_seconds_count{service="shop",tool="search"} 1');
  });

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const h = new BoundHistogram({ name: 'y', help: 'h', labelNames: ['service'] as const, buckets, registers: [] });
    expect(() => h.bind({ service: 's' }).observe(Number.NaN)).toThrow(TypeError);
  });
});
