/**
 * A dialect reader turns one span of one instrumentation's conventions into SpanFacts, and
 * `Dialects` holds the readers in precedence order: the first whose `matches` is true reads the span.
 * A registry built per service instance (src/normalize/dialects.ts lists the built-in ones); a new
 * dialect is one file exporting its reader and one `add` line there, never a switch to edit.
 *
 * Every span of a batch is put to the readers, and most carry nothing for any of them (HTTP, DB) or
 * are the catch-all's (`genai`): asking each reader's `matches` in turn probed some forty absent keys
 * per span. So a reader names its marks (the keys without one of which it never matches), the
 * registry walks a span's keys once, and only the readers a present key marks are asked, in order.
 */
import type { Span, SpanFacts } from '../model.js';
import { Registry } from '../util/registry.js';
import { baseFacts } from './facts.js';
import { setFinishReasons } from './finish-reasons.js';

/** What a span must carry for a reader's `matches` to be true. */
export interface DialectMarks {
  /** Attribute keys: `matches` is false for a span whose attributes hold none of them (and not `also`). */
  keys: readonly string[];
  /** What is not an attribute key (the span's name, its events): true when `matches` may hold without the keys. */
  also?: (span: Span) => boolean;
}

export interface DialectReader {
  /** Registry name; becomes SpanFacts.dialect. */
  name: string;
  /** Its marks: without them the reader is asked about every span, an earlier reader's claim aside. */
  marks?: DialectMarks;
  /** Cheap test on attribute presence: runs for the spans its marks allow (every span without marks). */
  matches(span: Span): boolean;
  /** Must not throw on any input; returns proposals/replays arrays always. */
  read(span: Span): SpanFacts;
}

/** A reader as the registry asks it: `bit` its mark bit (0: asked about every span). */
interface Entry {
  reader: DialectReader;
  bit: number;
  also: ((span: Span) => boolean) | undefined;
}

/** Mark bits fit one small integer; a reader past them is asked about every span. */
const MARK_BITS = 30;

export class Dialects extends Registry<DialectReader> {
  private asked: Entry[] = [];
  /** Attribute key → the bits of the readers it marks. */
  private byKey = new Map<string, number>();

  constructor() {
    super('dialect');
  }

  /** Adds a reader under its own name, by default last; `before` names a reader it must precede. */
  add(reader: DialectReader, options: { before?: string } = {}): this {
    return this.register(reader.name, reader, options);
  }

  override register(name: string, reader: DialectReader, options: { before?: string } = {}): this {
    super.register(name, reader, options);
    // Positions move when a reader is placed before another: the bits are laid out again.
    this.asked = [];
    this.byKey = new Map();
    for (const r of this.values()) {
      const i = this.asked.length;
      const bit = r.marks === undefined || i >= MARK_BITS ? 0 : 1 << i;
      for (const k of bit === 0 ? [] : r.marks!.keys) this.byKey.set(k, (this.byKey.get(k) ?? 0) | bit);
      this.asked.push({ reader: r, bit, also: bit === 0 ? undefined : r.marks!.also });
    }
    return this;
  }

  /**
   * The first reader whose `matches` is true, asking only those a key of the span marks (or whose
   * `also` holds). for…in, not Object.keys: an attribute object in fast mode walks its enum cache
   * without allocating; a key it inherits could only add a reader to ask, never drop one.
   */
  private readerOf(span: Span): DialectReader | undefined {
    const byKey = this.byKey;
    let marked = 0;
    for (const k in span.attributes) {
      const bits = byKey.get(k);
      if (bits !== undefined) marked |= bits;
    }
    for (const e of this.asked) {
      if (e.bit !== 0 && (marked & e.bit) === 0 && (e.also === undefined || !e.also(span))) continue;
      if (e.reader.matches(span)) return e.reader;
    }
    return undefined;
  }

  /**
   * What the span says about models and tools; undefined when no reader recognises it (the span
   * carries nothing about them). A reader bug on hostile input must not take the whole batch down,
   * so a throw yields bare facts with the span's identity and no calls.
   */
  normalizeSpan(span: Span): SpanFacts | undefined {
    const r = this.readerOf(span);
    if (r === undefined) return undefined;
    let f: SpanFacts;
    try {
      f = r.read(span);
    } catch {
      f = baseFacts(span, r.name, 'other');
    }
    // Set here, for every reader alike: where a call came from, for the coverage report.
    f.scope = span.scope;
    f.scopeVersion = span.scopeVersion;
    if (f.proposals.length > 0) setFinishReasons(f, span);
    return f;
  }

  normalizeSpans(spans: readonly Span[]): SpanFacts[] {
    const out: SpanFacts[] = [];
    for (const s of spans) {
      const f = this.normalizeSpan(s);
      if (f) out.push(f);
    }
    return out;
  }
}
