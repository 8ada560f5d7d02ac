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
import { type BatchCoverage, countSpan, type SpanCoverage } from './batch-coverage.js';
import { isLlmKey } from './llm-looking.js';
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
  /** The key lists last counted into `keys` (at most SEEN_LISTS, the oldest replaced). */
  seen: SeenKeys[];
  seenNext: number;
}

/**
 * A list of attribute keys counted into a row's top keys, and the counters its patterns went to:
 * the spans of one instrumentation carry the same keys over and over, so a repeat bumps the counters
 * without working out or looking up a pattern — while `evictions` says none of them was pushed out.
 */
interface SeenKeys {
  keys: readonly string[];
  counters: { n: number }[];
  evictions: number;
}

/** Key lists remembered per row (an instrumentation's model spans, agent spans …). */
const SEEN_LISTS = 4;

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
    const e = this.entry(span.scope, span.scopeVersion, span.service, budget);
    const read = countSpan(e, span, facts);
    if (typeof read === 'string') return read;
    this.countKeys(e, read);
    return facts === undefined ? 'unrecognized' : 'llm';
  }

  /**
   * A committed batch's spans, read before the commit (batch-coverage.ts): counted as observeSpan
   * counts them one by one, in the same order. `budget`: its sender's.
   */
  observeBatch(batch: BatchCoverage, budget?: string): void {
    for (const r of batch.runs) {
      const e = this.entry(r.scope, r.scopeVersion, r.service, budget);
      e.spans += r.spans;
      e.llmSpans += r.llmSpans;
      e.unrecognizedSpans += r.unrecognizedSpans;
      e.llmSpansWithoutCalls += r.llmSpansWithoutCalls;
      for (const keys of r.keyLists) this.countKeys(e, keys);
    }
  }

  /** A span's keys into the row's top keys (by their patterns; a key list seen before: its counters bumped). */
  private countKeys(e: Entry, keys: readonly string[]): void {
    const top = e.keys;
    for (const s of e.seen) {
      if (s.evictions !== top.evictions || !sameList(s.keys, keys)) continue;
      for (const c of s.counters) c.n++;
      return;
    }
    const before = top.evictions;
    const counters: { n: number }[] = [];
    for (const k of keys) {
      const p = this.patternOf(k);
      if (p !== null) counters.push(top.add(p));
    }
    // A key pushed out while these were counted may be one of them: nothing to remember then.
    if (top.evictions !== before) return;
    e.seen[e.seenNext] = { keys, counters, evictions: before };
    e.seenNext = (e.seenNext + 1) % SEEN_LISTS;
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
    for (const { keys, unvalidated, seen: _seen, seenNext: _next, ...counts } of this.entries.values()) {
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
      seen: [],
      seenNext: 0,
    };
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
