/**
 * Lower-case hex ids as 32-bit words and back (src/util/hex-id.ts): what the execution hold and the
 * trajectory tracker keep instead of id strings. Every id of the right length and digits comes back
 * as it was, into either kind of column; any other id is refused.
 */
import { describe, expect, it } from 'vitest';
import { hexToWords, wordsToHex } from '../../src/util/hex-id.js';

describe('hexToWords / wordsToHex', () => {
  const scratch = Buffer.alloc(16);
  it.each([
    ['4bf92f3577b34da6a3ce929d0e0e4736', 32],
    ['ffffffffffffffffffffffffffffffff', 32],
    ['00000000000000000000000000000001', 32],
    ['00f067aa0ba902b7', 16],
    ['80000000ffffffff', 16],
  ])('%s comes back as it was from Int32 and Uint32 columns', (id, digits) => {
    for (const out of [new Int32Array(6), new Uint32Array(6)]) {
      expect(hexToWords(id, digits, out, 2)).toBe(true);
      expect(wordsToHex(out, 2, digits / 8, scratch)).toBe(id);
    }
  });

  it.each([
    ['4BF92F3577B34DA6A3CE929D0E0E4736', 32, 'upper-case digits'],
    ['4bf92f3577b34da6a3ce929d0e0e473', 32, 'a digit short'],
    ['4bf92f3577b34da6a3ce929d0e0e4736', 16, 'another length'],
    ['lf-trace-7', 16, 'not hex'],
    ['00f067aa0ba902bé', 16, 'a character past ASCII'],
    ['', 16, 'empty'],
  ])('%s is refused (%s)', (id, digits) => {
    expect(hexToWords(id, digits, new Uint32Array(4), 0)).toBe(false);
  });
});
