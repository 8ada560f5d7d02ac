/**
 * The wire-level readers of the OTLP/protobuf decoders (decode-protobuf.ts for traces,
 * decode-logs.ts for logs) over protobufjs/minimal's Reader: length prefixes checked against the
 * body, fields skipped by wire type, fixed64 times and int64 varints as numbers, and strings and
 * repeating ids (trace and parent ids, not a span's own) read through small caches, so what repeats
 * across spans and batches is decoded once.
 */
import type pb from 'protobufjs/minimal.js';

export type Reader = pb.Reader;

/** Node's Buffer has these native slicers (protobufjs relies on utf8Slice too). */
export interface FastBuffer extends Buffer {
  utf8Slice(start: number, end: number): string;
  hexSlice(start: number, end: number): string;
}

/** Decoder state for one request; passed explicitly, no closures. */
export interface Ctx {
  r: Reader;
  b: FastBuffer;
  maxDepth: number;
  nowMs: number | undefined;
}

const TWO32 = 4294967296;

// Tags and length prefixes are nearly always one byte (field numbers < 16, keys and short values
// < 128 bytes): read here without protobufjs's general varint call.

/** A varint of at most 32 bits: a field's tag, a length prefix. */
export function readVarint32(r: Reader): number {
  const p = r.pos;
  const x = r.buf[p];
  // undefined past the end: the general reader throws its bounds error.
  if (x !== undefined && x < 128) {
    r.pos = p + 1;
    return x;
  }
  return r.uint32();
}

/** Reads a length prefix and returns the end offset of the field, checked against the buffer. */
export function ldEnd(r: Reader): number {
  const len = readVarint32(r);
  const end = r.pos + len;
  if (end > r.len) throw new RangeError(`length ${len} at offset ${r.pos} runs past the end of the ${r.len}-byte body`);
  return end;
}

export function checkEnd(r: Reader, end: number): void {
  if (r.pos !== end) throw new RangeError(`field at offset ${r.pos} overruns its enclosing message`);
}

export function skipField(r: Reader, tag: number): void {
  if (tag < 8) throw new RangeError(`invalid field number 0 at offset ${r.pos}`);
  switch (tag & 7) {
    case 0:
      r.skip();
      return;
    case 1:
      r.skip(8);
      return;
    case 2:
      r.skip(r.uint32());
      return;
    case 5:
      r.skip(4);
      return;
    default:
      throw new RangeError(`unsupported wire type ${tag & 7} at offset ${r.pos}`);
  }
}

export function readString(c: Ctx): string {
  const r = c.r;
  const end = ldEnd(r);
  const start = r.pos;
  r.pos = end;
  return stringAt(c.b, start, end);
}

/** The UTF-8 text of bytes [start, end) of the body, already bounds-checked, through the caches below. */
export function stringAt(b: FastBuffer, start: number, end: number): string {
  const len = end - start;
  if (len === 0) return '';
  if (len <= STR_CACHE_MAX_LEN) return cachedUtf8(b, start, end);
  return len <= LONG_MAX_LEN ? cachedLongUtf8(b, start, end) : b.utf8Slice(start, end);
}

/**
 * A 32-bit hash of a byte range for the caches below: four bytes per multiply (keys and ids are 8 to
 * 48 bytes, hashed on every read), then a final mix so the top bits, which pick the slot, depend on
 * every byte. Collisions only cost a cache miss: a hit is always confirmed byte by byte.
 */
function hashBytes(b: FastBuffer, start: number, end: number): number {
  let h = 0x811c9dc5 ^ (end - start);
  let i = start;
  for (const last = end - 3; i < last; i += 4) {
    h = Math.imul(h ^ (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)), 0x01000193);
  }
  for (; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

// Short strings (attribute keys, model names, operation names…) repeat across the spans of a batch
// and across batches. A direct-mapped cache keyed by the bytes replaces a native utf8Slice call
// (~100 ns each) by a hash and a compare, and hands out one string per key, so property stores
// do not re-internalise it.
const STR_CACHE_BITS = 12;
const STR_CACHE_MAX_LEN = 48;
const strCacheLen = new Int32Array(1 << STR_CACHE_BITS).fill(-1);
const strCacheBytes = new Uint8Array((1 << STR_CACHE_BITS) * STR_CACHE_MAX_LEN);
const strCacheStr: string[] = new Array<string>(1 << STR_CACHE_BITS).fill('');

function cachedUtf8(b: FastBuffer, start: number, end: number): string {
  const slot = hashBytes(b, start, end) >>> (32 - STR_CACHE_BITS);
  const len = end - start;
  let off = slot * STR_CACHE_MAX_LEN;
  if (strCacheLen[slot] === len) {
    let i = start;
    for (let o = off; i < end; i++, o++) if (strCacheBytes[o] !== b[i]) break;
    if (i === end) return strCacheStr[slot]!;
  }
  const s = b.utf8Slice(start, end);
  strCacheLen[slot] = len;
  strCacheStr[slot] = s;
  for (let i = start; i < end; i++, off++) strCacheBytes[off] = b[i]!;
  return s;
}

// Long values that repeat — tool definitions and system instructions, sent unchanged with every
// model request of an agent — are read once per distinct value: a repeat is recognised by a native
// byte compare and handed out as the same string object, so it costs no UTF-8 decode, no garbage,
// and the definition caches downstream (tools/tooldefs.ts, definition-hash.ts) find it without
// hashing or comparing its text again. A value is kept only from its second sighting on (a cheap
// fingerprint of its length and a few bytes is remembered first), so a batch of distinct messages
// pays a fingerprint each, not a copy. Bounded: LONG_SLOTS values of at most LONG_MAX_LEN bytes.
const LONG_BITS = 6;
const LONG_MAX_LEN = 64 * 1024;
const longPrint = new Int32Array(1 << LONG_BITS);
const longBytes: (Buffer | undefined)[] = new Array<Buffer | undefined>(1 << LONG_BITS).fill(undefined);
const longStr: string[] = new Array<string>(1 << LONG_BITS).fill('');
const longUsed = new Uint8Array(1 << LONG_BITS);

function cachedLongUtf8(b: FastBuffer, start: number, end: number): string {
  const len = end - start;
  // Its length and 4 bytes at each quarter and at its end: what tells most distinct values of a
  // length apart (JSON texts share their first bytes).
  let h = 0x811c9dc5 ^ len;
  const q = len >>> 2;
  for (let at = start + q; at < end; at += q) {
    const p = at + 4 > end ? end - 4 : at;
    h = Math.imul(h ^ b[p]!, 0x01000193);
    h = Math.imul(h ^ b[p + 1]!, 0x01000193);
    h = Math.imul(h ^ b[p + 2]!, 0x01000193);
    h = Math.imul(h ^ b[p + 3]!, 0x01000193);
  }
  h |= 1; // 0 marks an empty slot
  const slot = h >>> (32 - LONG_BITS);
  const kept = longBytes[slot];
  if (longPrint[slot] === h) {
    if (kept !== undefined && kept.length === len && b.compare(kept, 0, len, start, end) === 0) {
      longUsed[slot] = 1;
      return longStr[slot]!;
    }
    // Seen once before (or a different value with the same print): keep this one from now on.
    const s = b.utf8Slice(start, end);
    longBytes[slot] = Buffer.from(b.subarray(start, end));
    longStr[slot] = s;
    longUsed[slot] = 0;
    return s;
  }
  // A kept value hit since the last one-off value landed here gets a second chance: distinct
  // messages sharing its slot do not push a definition out batch after batch.
  if (longUsed[slot] === 1) {
    longUsed[slot] = 0;
    return b.utf8Slice(start, end);
  }
  longPrint[slot] = h;
  longBytes[slot] = undefined;
  longStr[slot] = '';
  return b.utf8Slice(start, end);
}

// Same idea for ids: a trace id repeats on every span of the trace, a parent id on every sibling.
const HEX_CACHE_BITS = 10;
const hexCacheLen = new Int32Array(1 << HEX_CACHE_BITS).fill(-1);
const hexCacheBytes = new Uint8Array((1 << HEX_CACHE_BITS) * 16);
const hexCacheStr: string[] = new Array<string>(1 << HEX_CACHE_BITS).fill('');

function cachedHex(b: FastBuffer, start: number, end: number): string {
  const slot = hashBytes(b, start, end) >>> (32 - HEX_CACHE_BITS);
  const len = end - start;
  let off = slot * 16;
  if (hexCacheLen[slot] === len) {
    let i = start;
    for (let o = off; i < end; i++, o++) if (hexCacheBytes[o] !== b[i]) break;
    if (i === end) return hexCacheStr[slot]!;
  }
  const s = b.hexSlice(start, end);
  hexCacheLen[slot] = len;
  hexCacheStr[slot] = s;
  for (let i = start; i < end; i++, off++) hexCacheBytes[off] = b[i]!;
  return s;
}

/**
 * fixed64 nanoseconds → milliseconds (float) whose whole part is exact: nanoseconds past 2^53 are not
 * exact as one double, and (hi·2^32 + lo) / 1e6 put a span at 10:02:00.000 at 10:01:59.9999998 — a
 * minute early once floored. 2^32 = 4294·1e6 + 967296, so the whole milliseconds are
 * hi·4294 + ⌊(hi·967296 + lo) / 1e6⌋, every term exact (hi·967296 + lo < 2^53 for any hi < 2^32).
 */
export function readNanosAsMs(r: Reader): number {
  const lo = r.fixed32();
  const hi = r.fixed32();
  const rest = hi * 967_296 + lo;
  const whole = Math.floor(rest / 1e6);
  return hi * 4294 + whole + (rest - whole * 1e6) / 1e6;
}

/** int64 varint → number (two's complement for negatives; precision beyond 2^53 is lost). */
export function readInt64(r: Reader): number {
  const buf = r.buf;
  const len = r.len;
  let pos = r.pos;
  let lo = 0;
  let hi = 0;
  let b = 0;
  for (let i = 0; i < 4; i++) {
    if (pos >= len) throw new RangeError('truncated varint');
    b = buf[pos++]!;
    lo = (lo | ((b & 127) << (i * 7))) >>> 0;
    if (b < 128) {
      r.pos = pos;
      return lo;
    }
  }
  if (pos >= len) throw new RangeError('truncated varint');
  b = buf[pos++]!;
  lo = (lo | ((b & 127) << 28)) >>> 0;
  hi = (b & 127) >> 4;
  if (b >= 128) {
    for (let i = 0; i < 5; i++) {
      if (pos >= len) throw new RangeError('truncated varint');
      b = buf[pos++]!;
      hi = (hi | ((b & 127) << (i * 7 + 3))) >>> 0;
      if (b < 128) break;
    }
    if (b >= 128) throw new RangeError('varint longer than 10 bytes');
  }
  r.pos = pos;
  if (hi & 0x80000000) {
    lo = (~lo + 1) >>> 0;
    hi = ~hi >>> 0;
    if (lo === 0) hi = (hi + 1) >>> 0;
    return -(hi * TWO32 + lo);
  }
  return hi * TWO32 + lo;
}

/**
 * Hex of an id that does not repeat (a span's own id), else '': straight from the bytes, since a
 * cache would only hash it and store it to miss.
 */
export function uniqueIdHex(c: Ctx, start: number, end: number, want: number): string {
  return end - start === want ? c.b.hexSlice(start, end) : '';
}

/** Hex of an id whose length is as expected, else ''. */
export function idHex(c: Ctx, start: number, end: number, want: number): string {
  return end - start === want ? cachedHex(c.b, start, end) : '';
}
