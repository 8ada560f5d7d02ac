/**
 * Lower-case hex ids — OTLP trace and span ids as the decoders write them — as 32-bit words and back:
 * what the column tables (the execution hold's ring, the trajectory tracker's trace index) keep instead
 * of a string per item, since a string held for seconds is promoted and then marked by every major GC.
 */

/** Hex digit values of '0'–'9' and 'a'–'f'; -1 for every other character code below 128. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;

/**
 * Writes `id`, when it is exactly `digits` lower-case hex digits (a multiple of 8), as digits / 8
 * words into out[at…], most significant first; false for any other id (out[at…] may then be partly
 * written, and must not be read).
 */
export function hexToWords(id: string, digits: number, out: Int32Array | Uint32Array, at: number): boolean {
  if (id.length !== digits) return false;
  for (let i = 0, p = 0; p < digits; i++) {
    let v = 0;
    for (const end = p + 8; p < end; p++) {
      const c = id.charCodeAt(p);
      const d = c < 128 ? HEX[c]! : -1;
      if (d < 0) return false;
      v = (v << 4) | d;
    }
    out[at + i] = v;
  }
  return true;
}

/** The lower-case hex of `count` words from words[at…], spelled through `scratch` (at least 4 × count bytes). */
export function wordsToHex(words: Int32Array | Uint32Array, at: number, count: number, scratch: Buffer): string {
  for (let i = 0; i < count; i++) scratch.writeUInt32BE(words[at + i]! >>> 0, i * 4);
  return scratch.toString('hex', 0, count * 4);
}
