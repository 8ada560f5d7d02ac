/**
 * The execution hold's arguments as UTF-8 bytes (src/pipeline/text-ring.ts): every text comes back
 * as it went in, in order — none, empty, multi-byte, past the bytes limit — through wrap-around at
 * the end of the buffer and growth of the buffer and of the entry ring, and a text not read is only
 * dropped.
 */
import { describe, expect, it } from 'vitest';
import { MAX_BYTES_TEXT, TextRing } from '../../src/pipeline/text-ring.js';

const SAMPLES: (string | undefined)[] = [
  '{"city":"Oslo"}',
  undefined,
  '',
  '{"q":"Zürich – 東京 🚀"}',
  'x'.repeat(MAX_BYTES_TEXT + 1),
  '{"order_id":"ORD-123456","amount":114.01}',
  'é'.repeat(MAX_BYTES_TEXT),
];

describe('TextRing', () => {
  it('hands back each text as given, oldest first, while the buffer wraps round and grows', () => {
    const ring = new TextRing();
    const sent: (string | undefined)[] = [];
    const got: (string | undefined)[] = [];
    // Released in uneven steps so the write position passes the end of the buffer many times, with
    // the oldest text at every distance from it; then a burst that makes the buffer and ring grow.
    for (let i = 0; i < 20_000; i++) {
      const t = SAMPLES[i % SAMPLES.length]! === undefined ? undefined : `${i}:${SAMPLES[i % SAMPLES.length]}`;
      sent.push(t);
      ring.push(t);
      if (ring.length > 40 + (i % 37)) while (ring.length > 5 + (i % 11)) got.push(ring.shift(true));
    }
    const before = ring.capacity;
    for (let i = 0; i < 3_000; i++) {
      const t = `burst ${i} ${'{"a":1}'.repeat(i % 50)}`;
      sent.push(t);
      ring.push(t);
    }
    expect(ring.capacity).toBeGreaterThan(before);
    while (ring.length > 0) got.push(ring.shift(true));
    expect(got).toEqual(sent);
  });

  it('reads a text only when asked, and keeps the others in order', () => {
    const ring = new TextRing();
    for (const t of ['a', 'bb', undefined, 'dddd']) ring.push(t);
    expect(ring.shift(false)).toBeUndefined();
    expect(ring.shift(true)).toBe('bb');
    expect(ring.shift(true)).toBeUndefined();
    expect(ring.shift(true)).toBe('dddd');
    expect(ring.length).toBe(0);
    expect(() => ring.shift(true)).toThrow(/empty/);
  });

  it('holds steady traffic in a buffer that stops growing', () => {
    const ring = new TextRing();
    const text = '{"query":"refund policy for order 12345","limit":10}';
    for (let i = 0; i < 2_000; i++) ring.push(text);
    const size = ring.capacity;
    // As many released as pushed, 2,000 held at any time, for 200,000 texts: the buffer is reused.
    let wrong = 0;
    for (let i = 0; i < 200_000; i++) {
      ring.push(text);
      const read = i % 1000 === 0;
      if (ring.shift(read) !== (read ? text : undefined)) wrong++;
    }
    expect(wrong).toBe(0);
    expect(ring.capacity).toBe(size);
  });
});
