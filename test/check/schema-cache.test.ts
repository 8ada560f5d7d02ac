/**
 * The schema cache stays bounded however many distinct schemas arrive (issue 8, Medium 7): Ajv's
 * own cache is evicted with it (a fresh Ajv per generation), so the heap stops growing.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SchemaCache } from '../../src/check/schema-cache.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A distinct, realistic tool schema (a few properties, a pattern, an enum). */
function schema(i: number): object {
  return {
    type: 'object',
    properties: {
      [`city_${i}`]: { type: 'string', pattern: `^[A-Z][a-z]{0,${(i % 50) + 1}}$`, maxLength: 100 },
      units: { enum: ['metric', 'imperial', `u${i}`] },
      days: { type: 'integer', minimum: 1, maximum: 14 },
      tags: { type: 'array', items: { type: 'string', format: 'uri' } },
    },
    required: [`city_${i}`],
    additionalProperties: false,
  };
}

describe('SchemaCache memory', () => {
  it('keeps Ajv bounded: heap does not grow with the number of distinct schemas', () => {
    const cache = new SchemaCache(200);
    const compile = (from: number, to: number) => {
      for (let i = from; i < to; i++) expect(cache.get(schema(i)).ok).toBe(true);
    };
    compile(0, 500);
    const atStart = heapAfterGc();
    compile(500, 3_000);
    const atEnd = heapAfterGc();
    const growthMiB = (atEnd - atStart) / 2 ** 20;
    expect(cache.entries).toBeLessThanOrEqual(200);
    // (plus the meta-schemas every Ajv holds)
    expect(cache.ajvCacheSize()).toBeLessThanOrEqual(200 + 20);
    expect(cache.generations).toBeGreaterThanOrEqual(15);
    // 2,500 more schemas held by an unbounded Ajv cost 18 MiB here (measured).
    expect(growthMiB).toBeLessThan(4);
    // 3,000 Ajv compiles: ~4 s on a quiet machine, 13 s seen on a loaded CI host; the limit only catches a hang.
  }, 120_000);

  it('a validator from an older generation still validates', () => {
    const cache = new SchemaCache(10);
    const first = cache.get(schema(1));
    for (let i = 2; i < 40; i++) cache.get(schema(i));
    expect(first.ok && first.validate({ city_1: 'Os' })).toBe(true);
    expect(first.ok && first.validate({ city_1: 'os' })).toBe(false);
  });
});
