/**
 * The frontend messages of one pipeline (pg-statements.ts) — Parse, Bind, Describe, Execute per
 * statement and the Sync — encoded into one buffer, for one socket write per group commit. Through
 * node-postgres's Connection each message was its own small buffer and its own stream write (four
 * per statement, ~140 statements a group), and each value was measured (Buffer.byteLength) before
 * it was written: the Bind serialisation was most of what a group commit cost toolwatch's core.
 *
 * Values are encoded as node-postgres encodes them (its prepareValue: text format, arrays as array
 * literals with every element quoted, Buffers in binary format); what this does not encode itself
 * (dates, objects, nested arrays) goes through that prepareValue, so the server sees the same text.
 */
import pg from 'pg';

const prepareValue = (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Below this length a string is copied char by char (ASCII), cheaper than a call into the encoder. */
const SHORT = 32;

export class WireWriter {
  private buf: Buffer;
  private off = 0;

  /** Sized as the last pipeline was: group commits are much alike, and growing copies what was written. */
  private static lastSize = 16 * 1024;

  constructor() {
    this.buf = Buffer.allocUnsafe(WireWriter.lastSize);
  }

  /** Where the next message starts: truncate() back to it drops what was written since. */
  get position(): number {
    return this.off;
  }

  truncate(position: number): void {
    this.off = position;
  }

  /** The messages written, to send as they are (a view on the writer's buffer). */
  bytes(): Buffer {
    WireWriter.lastSize = Math.max(4096, this.off + (this.off >>> 3));
    return this.buf.subarray(0, this.off);
  }

  parse(name: string, text: string): void {
    const start = this.begin(0x50);
    this.cstring(name);
    this.cstring(text);
    this.int16(0); // no parameter types: the server infers them, as node-postgres leaves them
    this.end(start);
  }

  /** Binds `values` to the unnamed portal; throws (what prepareValue throws) on a value it cannot encode. */
  bind(statement: string, values: readonly unknown[]): void {
    const start = this.begin(0x42);
    this.cstring(''); // the unnamed portal
    this.cstring(statement);
    const n = values.length;
    this.int16(n);
    const formats = this.off;
    this.reserve(2 * n);
    this.off += 2 * n;
    this.int16(n);
    for (let i = 0; i < n; i++) {
      const binary = this.value(values[i]);
      this.buf[formats + 2 * i] = 0;
      this.buf[formats + 2 * i + 1] = binary ? 1 : 0;
    }
    this.int16(1); // one result format for every column:
    this.int16(0); // text
    this.end(start);
  }

  describePortal(): void {
    const start = this.begin(0x44);
    this.byte(0x50);
    this.cstring('');
    this.end(start);
  }

  execute(): void {
    const start = this.begin(0x45);
    this.cstring('');
    this.int32(0); // every row
    this.end(start);
  }

  sync(): void {
    this.end(this.begin(0x53));
  }

  /** One parameter, its length first (-1: NULL); whether it went in binary format. */
  private value(v: unknown): boolean {
    if (v === null || v === undefined) {
      this.int32(-1);
      return false;
    }
    if (typeof v === 'string') return (this.sized(v, false), false);
    if (typeof v === 'number' && Number.isSafeInteger(v)) return (this.integer(v), false);
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
      return (this.sized(String(v), false), false);
    if (Array.isArray(v) && this.plainArray(v)) {
      const at = this.off;
      this.int32(0);
      this.arrayLiteral(v);
      this.setInt32(this.off - at - 4, at);
      return false;
    }
    const prepared = prepareValue(v);
    if (prepared === null) return (this.int32(-1), false);
    if (Buffer.isBuffer(prepared)) {
      this.int32(prepared.length);
      this.reserve(prepared.length);
      this.off += prepared.copy(this.buf, this.off);
      return true;
    }
    this.sized(String(prepared), false);
    return false;
  }

  /** A safe integer with its length before it (see digits). */
  private integer(v: number): void {
    const at = this.off;
    this.int32(0);
    this.digits(v);
    this.setInt32(this.off - at - 4, at);
  }

  /**
   * A safe integer's decimal digits, what String(v) gives (no exponent below 1e21, `-` before a
   * negative, -0 as `0`), without making the string first: most values bound are times in ms and counts.
   */
  private digits(v: number): void {
    const negative = v < 0;
    let n = negative ? -v : v;
    let len = negative ? 2 : 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) len++;
    this.reserve(len);
    const buf = this.buf;
    if (negative) buf[this.off] = 0x2d;
    let at = this.off + len;
    do {
      const q = Math.floor(n / 10);
      buf[--at] = 0x30 + (n - 10 * q);
      n = q;
    } while (n > 0);
    this.off += len;
  }

  /** Elements this writes itself (strings, numbers, booleans, nulls); any other goes through prepareValue. */
  private plainArray(a: readonly unknown[]): boolean {
    for (const x of a) {
      const t = typeof x;
      if (x !== null && x !== undefined && t !== 'string' && t !== 'number' && t !== 'boolean' && t !== 'bigint')
        return false;
    }
    return true;
  }

  /** As node-postgres's arrayString: `{"a","b",NULL}`, `"` and `\` escaped with a backslash. */
  private arrayLiteral(a: readonly unknown[]): void {
    this.byte(0x7b);
    for (let i = 0; i < a.length; i++) {
      if (i > 0) this.byte(0x2c);
      const x = a[i];
      if (x === null || x === undefined) {
        this.reserve(4);
        this.off += this.buf.write('NULL', this.off, 'latin1');
        continue;
      }
      this.byte(QUOTE);
      if (typeof x === 'number' && Number.isSafeInteger(x)) this.digits(x);
      else this.text(typeof x === 'string' ? x : String(x), true);
      this.byte(QUOTE);
    }
    this.byte(0x7d);
  }

  /** A string with its byte length before it. */
  private sized(s: string, quoted: boolean): void {
    const at = this.off;
    this.int32(0);
    this.text(s, quoted);
    this.setInt32(this.off - at - 4, at);
  }

  /** A string's UTF-8 bytes, `"` and `\` backslash-escaped when `quoted`. */
  private text(s: string, quoted: boolean): void {
    const len = s.length;
    // Room for the worst case: 3 bytes per UTF-16 unit, doubled when every character is escaped.
    this.reserve(quoted ? 6 * len : 3 * len);
    if (len < SHORT) {
      const buf = this.buf;
      let o = this.off;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        if (quoted && (c === QUOTE || c === BACKSLASH)) buf[o++] = BACKSLASH;
        buf[o++] = c;
      }
      if (i === len) {
        this.off = o;
        return;
      }
      // Not ASCII: the encoder writes it, from the start.
    }
    const raw = quoted && (s.includes('"') || s.includes('\\')) ? s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') : s;
    this.off += this.buf.write(raw, this.off, 'utf8');
  }

  private begin(code: number): number {
    const start = this.off;
    this.byte(code);
    this.int32(0); // the length, filled by end()
    return start;
  }

  private end(start: number): void {
    this.setInt32(this.off - start - 1, start + 1);
  }

  private cstring(s: string): void {
    this.text(s, false);
    this.byte(0);
  }

  private byte(b: number): void {
    this.reserve(1);
    this.buf[this.off++] = b;
  }

  private int16(n: number): void {
    this.reserve(2);
    this.buf[this.off++] = n >>> 8;
    this.buf[this.off++] = n;
  }

  private int32(n: number): void {
    this.reserve(4);
    this.setInt32(n, this.off);
    this.off += 4;
  }

  /** Big-endian, as the protocol's; by hand: Buffer's writeInt32BE checks its arguments every call. */
  private setInt32(n: number, at: number): void {
    const buf = this.buf;
    buf[at] = n >>> 24;
    buf[at + 1] = n >>> 16;
    buf[at + 2] = n >>> 8;
    buf[at + 3] = n;
  }

  private reserve(n: number): void {
    if (this.off + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.off + n));
    this.buf.copy(grown, 0, 0, this.off);
    this.buf = grown;
  }
}
