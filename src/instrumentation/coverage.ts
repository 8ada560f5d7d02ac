/**
 * Instrumentation coverage: per instrumentation scope (name + version) and service, how many spans
 * arrived, how many look like LLM or tool spans, how many calls were found in them and why calls
 * went unchecked — and, for LLM-looking spans no call was read from, which attribute keys they
 * carry (the most frequent ones; values are never looked at). A user who points a new framework at
 * toolwatch sees at once "this scope: 4,000 LLM spans, 0 calls found — keys: …".
 *
 * Pure and bounded: no clock, no I/O; at most `maxEntries` scope × service rows (the rest are
 * folded into one `_other` row), at most `keysPerEntry` keys remembered per row, every key and
 * label clipped. The rows are first come, first kept, so a sender restricted to some services (its
 * budget: metrics/label-cap.ts labelBudget) opens at most `maxEntriesPerBudget` of them: one token
 * inventing scopes or services folds its own later rows into `_other`, not every other team's. What to do with the report (an endpoint, a page section, a metric) is the caller's.
 *
 * Cheap per span (it runs on the ingest path): a span a reader recognised is LLM-looking without a
 * look at its keys, and keys are scanned only for LLM-looking spans no call was read from.
 */
import type { Outcome, Span, SpanFacts, UnvalidatedReason } from '../model.js';
import { isLlmKey, looksLikeLlmSpan } from './llm-looking.js';
import { TopKeys } from './top-keys.js';

export interface CoverageOptions {
  /** Scope × service rows kept; later combinations are counted in the `_other` row. */
  maxEntries: number;
  /** Of those, the rows one restricted sender's spans may open (issue 17, finding 4). */
  maxEntriesPerBudget: number;
  /** Attribute keys remembered per row (Space-Saving counters). */
  keysPerEntry: number;
  /** Keys listed per row in the report. */
  topKeys: number;
  /** Longest key, scope or service name kept (longer ones are cut). */
  maxLength: number;
}

export const DEFAULT_COVERAGE_OPTIONS: Readonly<CoverageOptions> = Object.freeze({
  maxEntries: 256,
  maxEntriesPerBudget: 64,
  keysPerEntry: 64,
  topKeys: 20,
  maxLength: 200,
});

/** Where a call was read: the scope and service of the span it was counted from. */
export interface CallOrigin {
  scope: string;
  scopeVersion: string;
  service: string;
}

export interface CoverageRow {
  scope: string;
  scopeVersion: string;
  service: string;
  /** Every span received from this scope and service. */
  spans: number;
  /** Spans a reader recognised, or with a GenAI/LLM/agent attribute or event (see llm-looking.ts). */
  llmSpans: number;
  /** LLM-looking spans no dialect reader recognised. */
  unrecognizedSpans: number;
  /** LLM-looking spans from which no call, execution or summary was read (recognised or not). */
  llmSpansWithoutCalls: number;
  /** Calls counted from this scope's spans, and those of them left unchecked, by reason. */
  calls: number;
  unvalidated: Partial<Record<UnvalidatedReason, number>>;
  /** The most frequent attribute keys of the LLM-looking spans without calls (numbered segments as `{i}`). */
  topKeys: { key: string; spans: number }[];
}

interface Entry extends Omit<CoverageRow, 'topKeys'> {
  keys: TopKeys;
}

/** What observeSpan made of a span. */
export type SpanCoverage = 'other' | 'llm' | 'unrecognized';

/** A batch's spans of one scope × service as CoverageTracker.see read them. */
export interface SeenGroup {
  scope: string;
  scopeVersion: string;
  service: string;
  spans: number;
  llmSpans: number;
  unrecognizedSpans: number;
  llmSpansWithoutCalls: number;
  /** Key patterns of its LLM-looking spans without calls, one per key per span, in span order. */
  keys?: string[];
}

/** What CoverageTracker.see read of a batch, for CoverageTracker.count once it committed. */
export type SpansSeen = SeenGroup[];

/** The group of the span's scope × service (a batch holds a few: found by comparing), made if new. */
function groupOf(groups: SpansSeen, span: Span): SeenGroup {
  for (const g of groups)
    if (g.scope === span.scope && g.scopeVersion === span.scopeVersion && g.service === span.service) return g;
  const g: SeenGroup = {
    scope: span.scope,
    scopeVersion: span.scopeVersion,
    service: span.service,
    spans: 0,
    llmSpans: 0,
    unrecognizedSpans: 0,
    llmSpansWithoutCalls: 0,
  };
  groups.push(g);
  return g;
}

export const OTHER = '_other';

/** `llm.input_messages.3.message.content` → `llm.input_messages.{i}.message.content`. */
export function keyPattern(key: string, maxLength: number): string {
  const k = hasNumberedSegment(key) ? key.replace(/\.\d+(?=\.|$)/g, '.{i}') : key;
  return k.length > maxLength ? k.slice(0, maxLength) : k;
}

/** A '.' followed by a digit: the only keys the (slower) pattern replace can change. */
function hasNumberedSegment(key: string): boolean {
  for (let i = key.indexOf('.'); i >= 0 && i < key.length - 1; i = key.indexOf('.', i + 1)) {
    const c = key.charCodeAt(i + 1);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

function hasCalls(f: SpanFacts): boolean {
  return f.proposals.length > 0 || f.execution !== undefined || (f.summaryCalls?.length ?? 0) > 0;
}

/** Attribute keys whose pattern is kept (CoverageTracker.patternOf), and the longest such key. */
const MAX_PATTERNS = 4096;
const MAX_PATTERN_KEY = 256;

export class CoverageTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly patterns = new Map<string, string | null>();
  readonly options: Readonly<CoverageOptions>;
  // The spans of one export share their scope and resource strings: the last row found is tried first.
  private lastScope: string | undefined;
  private lastVersion: string | undefined;
  private lastService: string | undefined;
  private lastEntry: Entry | undefined;
  /** Rows opened per restricted sender (as many keys as glob sets). */
  private readonly opened = new Map<string, number>();

  constructor(options: Partial<CoverageOptions> = {}) {
    this.options = Object.freeze({ ...DEFAULT_COVERAGE_OPTIONS, ...options });
  }

  /**
   * A received span and what the readers made of it (undefined: no reader recognised it). Returns
   * 'unrecognized' for an LLM-looking span no reader recognised (the caller counts those in a metric).
   */
  observeSpan(span: Span, facts: SpanFacts | undefined, budget?: string): SpanCoverage {
    const seen = this.see([span], [facts]);
    this.count(seen, budget);
    return seen[0]!.unrecognizedSpans > 0 ? 'unrecognized' : seen[0]!.llmSpans > 0 ? 'llm' : 'other';
  }

  /**
   * What a batch's spans add to the report, read now and counted later (`count`, once the batch
   * committed), so the spans need not be kept until then: per scope × service in order of first
   * appearance, the span counts and the key patterns of its LLM-looking spans without calls (in
   * span order). Reads the spans only; the report is unchanged.
   */
  see(spans: readonly Span[], facts: readonly (SpanFacts | undefined)[]): SpansSeen {
    const out: SpansSeen = [];
    let g: SeenGroup | undefined;
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      const f = facts[i];
      if (
        g === undefined ||
        g.scope !== span.scope ||
        g.scopeVersion !== span.scopeVersion ||
        g.service !== span.service
      )
        g = groupOf(out, span);
      g.spans++;
      if (f === undefined && !looksLikeLlmSpan(span)) continue;
      g.llmSpans++;
      if (f === undefined) g.unrecognizedSpans++;
      else if (hasCalls(f)) continue;
      g.llmSpansWithoutCalls++;
      for (const k in span.attributes) {
        const p = this.patternOf(k);
        if (p !== null) (g.keys ??= []).push(p);
      }
    }
    return out;
  }

  /**
   * Counts what `see` read of a committed batch (`budget`: its sender's); returns the LLM-looking
   * spans no reader recognised, per scope (the caller's metric), or undefined when there were none.
   */
  count(seen: SpansSeen, budget?: string): Map<string, number> | undefined {
    let unrecognized: Map<string, number> | undefined;
    for (const g of seen) {
      const e = this.entry(g.scope, g.scopeVersion, g.service, budget);
      e.spans += g.spans;
      e.llmSpans += g.llmSpans;
      e.unrecognizedSpans += g.unrecognizedSpans;
      e.llmSpansWithoutCalls += g.llmSpansWithoutCalls;
      if (g.keys) for (const k of g.keys) e.keys.add(k);
      if (g.unrecognizedSpans > 0) {
        unrecognized ??= new Map();
        unrecognized.set(g.scope, (unrecognized.get(g.scope) ?? 0) + g.unrecognizedSpans);
      }
    }
    return unrecognized;
  }

  /**
   * The key's pattern (keyPattern), or null for a key no LLM instrumentation writes. Spans of one
   * instrumentation carry the same keys over and over: the answers are kept for up to MAX_PATTERNS
   * keys (short ones only), so a repeat costs one lookup.
   */
  private patternOf(k: string): string | null {
    const known = this.patterns.get(k);
    if (known !== undefined) return known;
    const p = isLlmKey(k) ? keyPattern(k, this.options.maxLength) : null;
    if (this.patterns.size < MAX_PATTERNS && k.length <= MAX_PATTERN_KEY) this.patterns.set(k, p);
    return p;
  }

  /** A counted call, attributed to the scope and service of the span it was counted from (`budget`: its sender's). */
  observeCall(origin: CallOrigin, outcome: Outcome, budget?: string): void {
    const e = this.entry(origin.scope, origin.scopeVersion, origin.service, budget);
    e.calls++;
    if (outcome.outcome === 'unvalidated') e.unvalidated[outcome.reason] = (e.unvalidated[outcome.reason] ?? 0) + 1;
  }

  /**
   * Every row, the ones with the most LLM-looking spans first; `service` keeps that service's rows
   * only, `sees` the rows of the services it accepts (a reader restricted to some services).
   */
  report(q: { service?: string; sees?: (service: string) => boolean } = {}): CoverageRow[] {
    const rows: CoverageRow[] = [];
    const filtered = q.service !== undefined || q.sees !== undefined;
    for (const { keys, unvalidated, ...counts } of this.entries.values()) {
      // The folded row mixes services: it belongs to no one service's report.
      if (filtered && counts.scope === OTHER) continue;
      if (q.service !== undefined && counts.service !== q.service) continue;
      if (q.sees && !q.sees(counts.service)) continue;
      rows.push({ ...counts, unvalidated: { ...unvalidated }, topKeys: keys.top(this.options.topKeys) });
    }
    const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    return rows.sort(
      (a, b) =>
        b.llmSpans - a.llmSpans ||
        b.spans - a.spans ||
        cmp(a.scope, b.scope) ||
        cmp(a.scopeVersion, b.scopeVersion) ||
        cmp(a.service, b.service),
    );
  }

  /** Rows currently held (at most maxEntries + 1). */
  get size(): number {
    return this.entries.size;
  }

  private entry(scope: string, scopeVersion: string, service: string, budget: string | undefined): Entry {
    if (scope === this.lastScope && scopeVersion === this.lastVersion && service === this.lastService) {
      return this.lastEntry!;
    }
    const e = this.find(scope, scopeVersion, service, budget);
    this.lastScope = scope;
    this.lastVersion = scopeVersion;
    this.lastService = service;
    this.lastEntry = e;
    return e;
  }

  private find(scope: string, scopeVersion: string, service: string, budget: string | undefined): Entry {
    const max = this.options.maxLength;
    const s = scope.length > max ? scope.slice(0, max) : scope;
    const v = scopeVersion.length > max ? scopeVersion.slice(0, max) : scopeVersion;
    const svc = service.length > max ? service.slice(0, max) : service;
    const key = `${s}\u0000${v}\u0000${svc}`;
    let e = this.entries.get(key);
    if (e) return e;
    if (this.entries.size >= this.options.maxEntries) return this.other();
    if (budget !== undefined) {
      const opened = this.opened.get(budget) ?? 0;
      if (opened >= this.options.maxEntriesPerBudget) return this.other();
      this.opened.set(budget, opened + 1);
    }
    e = this.fresh(s, v, svc);
    this.entries.set(key, e);
    return e;
  }

  private other(): Entry {
    const key = `${OTHER}\u0000\u0000${OTHER}`;
    let e = this.entries.get(key);
    if (!e) {
      e = this.fresh(OTHER, '', OTHER);
      this.entries.set(key, e);
    }
    return e;
  }

  private fresh(scope: string, scopeVersion: string, service: string): Entry {
    return {
      scope,
      scopeVersion,
      service,
      spans: 0,
      llmSpans: 0,
      unrecognizedSpans: 0,
      llmSpansWithoutCalls: 0,
      calls: 0,
      unvalidated: {},
      keys: new TopKeys(this.options.keysPerEntry),
    };
  }
}
