import { describe, expect, it } from 'vitest';
import { grown, sameType } from '../../src/util/typed-arrays.js';

describe('grown', () => {
  it.each([
    ['Int32Array', Int32Array.from([-3, 7])],
    ['Uint32Array', Uint32Array.from([4294967295, 1])],
    ['Uint16Array', Uint16Array.from([65535, 2])],
    ['Float64Array', Float64Array.from([0.5, 1e300])],
    ['Uint8Array', Uint8Array.from([255, 0])],
  ])('keeps a %s its type and values, zeros after them', (name, a) => {
    const b = grown(a, 5);
    expect(b.constructor.name).toBe(name);
    expect([...b]).toEqual([...a, 0, 0, 0]);
    expect(b).not.toBe(a);
  });

  it('copies: the new column does not share the old one’s memory', () => {
    const a = Int32Array.from([1, 2]);
    const b = grown(a, 4);
    a[0] = 9;
    expect(b[0]).toBe(1);
  });
});

describe('sameType', () => {
  it('is an empty column of the same type', () => {
    const b = sameType(Float64Array.from([1, 2]), 3);
    expect(b).toBeInstanceOf(Float64Array);
    expect([...b]).toEqual([0, 0, 0]);
  });
});
