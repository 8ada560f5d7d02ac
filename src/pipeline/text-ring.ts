/**
 * Texts kept first in, first out as UTF-8 bytes in one buffer: the execution hold's arguments
 * (held-ring.ts). Each of tens of thousands of executions a second is held for its status grace
 * (2 s), and a string per execution outlived every young-generation collection of that time and was
 * promoted, to be marked and freed by a major GC (the profile of issue 22: of what request data
 * survived, the held arguments were the largest part). As bytes they are no object at all; the
 * string is made again only for the few executions that turn out to have failed.
 *
 * A text of more than MAX_BYTES_TEXT characters is kept as it is (rare, and large enough that its
 * copy would cost more than it saves).
 */

/** Longest text (in UTF-16 code units) kept as bytes. */
export const MAX_BYTES_TEXT = 4096;
const FIRST_ENTRIES = 1024;
const FIRST_BYTES = 64 * 1024;
/** Entry marks in `len`: no text, or the text kept as a string in `texts`. */
const NONE = -1;
const AS_STRING = -2;

export class TextRing {
  private bytes = Buffer.allocUnsafeSlow(0);
  /** Per entry (ring of `cap`): where its bytes start, and how many (or NONE / AS_STRING). */
  private off = new Int32Array(0);
  private len = new Int32Array(0);
  private texts: (string | undefined)[] = [];
  private cap = 0;
  private first = 0;
  length = 0;
  /** Where the oldest entry's bytes start and where the next are written (both 0 when empty). */
  private byteStart = 0;
  private byteEnd = 0;

  /** Bytes the buffer holds (for tests and the memory budget). */
  get capacity(): number {
    return this.bytes.length;
  }

  push(text: string | undefined): void {
    if (this.length === this.cap) this.growEntries();
    const i = (this.first + this.length) % this.cap;
    this.length++;
    if (text === undefined || text.length > MAX_BYTES_TEXT) {
      this.off[i] = this.byteEnd;
      this.len[i] = text === undefined ? NONE : AS_STRING;
      this.texts[i] = text;
      return;
    }
    // A UTF-16 code unit is at most 3 UTF-8 bytes: room for that, then the bytes written counted.
    const at = this.room(text.length * 3);
    const n = this.bytes.write(text, at, text.length * 3, 'utf8');
    this.off[i] = at;
    this.len[i] = n;
    this.byteEnd = at + n;
  }

  /** Removes the oldest text; returns it only when `read` (its string is made only then). */
  shift(read: boolean): string | undefined {
    if (this.length === 0) throw new Error('TextRing is empty');
    const i = this.first;
    const n = this.len[i]!;
    let text: string | undefined;
    if (n === AS_STRING) text = this.texts[i];
    else if (n >= 0 && read) text = this.bytes.toString('utf8', this.off[i]!, this.off[i]! + n);
    this.texts[i] = undefined;
    this.first = (i + 1) % this.cap;
    this.length--;
    if (this.length === 0) this.byteStart = this.byteEnd = 0;
    else this.byteStart = this.off[this.first]!;
    return text;
  }

  /**
   * Where `need` contiguous bytes can be written: after the newest bytes, else (wrapping round) at
   * the start of the buffer before the oldest, else in a larger buffer. The write never reaches the
   * oldest byte, so a full buffer is never mistaken for an empty one.
   */
  private room(need: number): number {
    const size = this.bytes.length;
    if (this.byteEnd >= this.byteStart) {
      if (this.byteEnd + need <= size) return this.byteEnd;
      if (need < this.byteStart) return 0;
    } else if (this.byteEnd + need < this.byteStart) return this.byteEnd;
    this.growBytes(need);
    return this.byteEnd;
  }

  /** A buffer at least twice as large, the entries' bytes copied to its start, oldest first. */
  private growBytes(need: number): void {
    let size = Math.max(FIRST_BYTES, this.bytes.length * 2);
    while (size < this.bytes.length + need) size *= 2;
    const next = Buffer.allocUnsafeSlow(size);
    let at = 0;
    for (let k = 0; k < this.length; k++) {
      const i = (this.first + k) % this.cap;
      const n = this.len[i]!;
      if (n > 0) this.bytes.copy(next, at, this.off[i]!, this.off[i]! + n);
      this.off[i] = at;
      if (n > 0) at += n;
    }
    this.bytes = next;
    this.byteStart = 0;
    this.byteEnd = at;
  }

  private growEntries(): void {
    const cap = Math.max(FIRST_ENTRIES, this.cap * 2);
    const off = new Int32Array(cap);
    const len = new Int32Array(cap);
    const texts: (string | undefined)[] = new Array<string | undefined>(cap).fill(undefined);
    for (let k = 0; k < this.length; k++) {
      const i = (this.first + k) % this.cap;
      off[k] = this.off[i]!;
      len[k] = this.len[i]!;
      texts[k] = this.texts[i];
    }
    this.off = off;
    this.len = len;
    this.texts = texts;
    this.first = 0;
    this.cap = cap;
  }
}
