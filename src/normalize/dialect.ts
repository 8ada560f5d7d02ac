/**
 * A dialect reader turns one span of one instrumentation's conventions into SpanFacts, and
 * `Dialects` holds the readers in precedence order: the first whose `matches` is true reads the span.
 * A registry built per service instance (src/normalize/dialects.ts lists the built-in ones); a new
 * dialect is one file exporting its reader and one `add` line there, never a switch to edit.
 */
import type { Span, SpanFacts } from '../model.js';
import { Registry } from '../util/registry.js';
import { baseFacts } from './facts.js';
import { setFinishReasons } from './finish-reasons.js';

export interface DialectReader {
  /** Registry name; becomes SpanFacts.dialect. */
  name: string;
  /** Cheap test on attribute presence: runs for every span against every earlier reader. */
  matches(span: Span): boolean;
  /** Must not throw on any input; returns proposals/replays arrays always. */
  read(span: Span): SpanFacts;
}

export class Dialects extends Registry<DialectReader> {
  private readers: DialectReader[] = [];

  constructor() {
    super('dialect');
  }

  /** Adds a reader under its own name, by default last; `before` names a reader it must precede. */
  add(reader: DialectReader, options: { before?: string } = {}): this {
    return this.register(reader.name, reader, options);
  }

  override register(name: string, reader: DialectReader, options: { before?: string } = {}): this {
    super.register(name, reader, options);
    this.readers = this.values();
    return this;
  }

  /**
   * What the span says about models and tools; undefined when no reader recognises it (the span
   * carries nothing about them). A reader bug on hostile input must not take the whole batch down,
   * so a throw yields bare facts with the span's identity and no calls.
   */
  normalizeSpan(span: Span): SpanFacts | undefined {
    for (const r of this.readers) {
      if (!r.matches(span)) continue;
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
    return undefined;
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
