/**
 * How often the settle round runs (src/pipeline/components.ts): a twentieth of the shorter grace,
 * between 50 and 250 ms — so that one round releases little at once (docs/counting.md).
 */
import { describe, expect, it } from 'vitest';
import { settleRoundMs } from '../../src/pipeline/components.js';

describe('settleRoundMs', () => {
  const cases = [
    { executionGraceMs: 10_000, statusGraceMs: 2_000, round: 100, why: 'the defaults: 2 s / 20' },
    {
      executionGraceMs: 10_000,
      statusGraceMs: 0,
      round: 250,
      why: 'a status grace of 0 holds nothing: 10 s / 20, capped',
    },
    { executionGraceMs: 500, statusGraceMs: 2_000, round: 50, why: 'short graces: at least 50 ms' },
    { executionGraceMs: 60_000, statusGraceMs: 30_000, round: 250, why: 'long graces: at most 250 ms' },
    { executionGraceMs: 3_000, statusGraceMs: 4_000, round: 150, why: 'the shorter grace sets it' },
  ];
  it.each(cases)('$why → $round ms', ({ executionGraceMs, statusGraceMs, round }) => {
    expect(settleRoundMs({ executionGraceMs, statusGraceMs })).toBe(round);
  });
});
