/**
 * Instrumentation coverage: per instrumentation scope (name + version) and service, how many spans
 * arrived, how many look like LLM or tool spans, how many calls were found in them and why calls
 * went unchecked — and, for LLM-looking spans no call was read from, which attribute keys they
 * carry (the most frequent ones; values are never looked at). A user who points a new framework at
 * toolwatch sees at once "this scope: 4,000 LLM spans, 0 calls found — keys: …".
 *
 * Pure and bounded: no clock, no I/O; at most `maxEntries` scope × service rows (the rest are
 * folded into one `_other` row), at most `keysPerEntry` keys remembered per row, every key and
 * label clipped. What to do with the report (an endpoint, a page section, a metric) is the caller's.
 */
import type { CheckedCall, Outcome, Span, SpanFacts, UnvalidatedReason } from '../model.js';
import { isLlmKey, looksLikeLlmSpan } from './llm-looking.js';
import { TopKeys } from './top-keys.js';

export interface CoverageOptions {
  /** Scope × service rows kept; later combinations are counted in the `_other` row. */
  maxEntries: number;
  /** Attribute keys remembered per row (Space-Saving counters). */
  keysPerEntry: number;
  /** Keys listed per row in the report. */
  topKeys: number;
  /** Longest key, scope or service name kept (longer ones are cut). */
  maxLength: number;
}

export const DEFAULT_COVERAGE_OPTIONS: Readonly<CoverageOptions> = Object.freeze({
  maxEntries: 256,
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
  /** Spans with a GenAI/LLM/agent attribute or event (see llm-looking.ts). */
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

export const OTHER = '_other';

/** `llm.input_messages.3.message.content` → `llm.input_messages.{i}.message.content`. */
export function keyPattern(key: string, maxLength: number): string {
  const k = /\.\d+(?=\.|$)/.test(key) ? key.replace(/\.\d+(?=\.|$)/g, '.{i}') : key;
  return k.length > maxLength ? k.slice(0, maxLength) : k;
}

function hasCalls(f: SpanFacts): boolean {
  return f.proposals.length > 0 || f.execution !== undefined || (f.summaryCalls?.length ?? 0) > 0;
}

export class CoverageTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly opts: CoverageOptions;

  constructor(options: Partial<CoverageOptions> = {}) {
    this.opts = { ...DEFAULT_COVERAGE_OPTIONS, ...options };
  }

  /** A received span and what the readers made of it (undefined: no reader recognised it). */
  observeSpan(span: Span, facts: SpanFacts | undefined): void {
    const e = this.entry(span.scope, span.scopeVersion, span.service);
    e.spans++;
    if (!looksLikeLlmSpan(span)) return;
    e.llmSpans++;
    if (facts === undefined) e.unrecognizedSpans++;
    if (facts !== undefined && hasCalls(facts)) return;
    e.llmSpansWithoutCalls++;
    for (const k in span.attributes) if (isLlmKey(k)) e.keys.add(keyPattern(k, this.opts.maxLength));
  }

  /** A counted call, attributed to the scope and service of the span it was counted from. */
  observeCall(origin: CallOrigin, outcome: Outcome): void {
    const e = this.entry(origin.scope, origin.scopeVersion, origin.service);
    e.calls++;
    if (outcome.outcome === 'unvalidated') e.unvalidated[outcome.reason] = (e.unvalidated[outcome.reason] ?? 0) + 1;
  }

  /**
   * One batch: its spans with their facts (`factsOf` returns the reader's result for a span), and the
   * calls counted from it. A call counted from a span outside the batch (a tool-span-only call
   * settled after its grace period) is attributed to its service with an empty scope, unless
   * `originOf` knows better.
   */
  observeBatch(
    spans: readonly Span[],
    factsOf: (span: Span) => SpanFacts | undefined,
    calls: readonly CheckedCall[],
    originOf?: (call: CheckedCall) => CallOrigin | undefined,
  ): void {
    const bySpan = new Map<string, CallOrigin>();
    for (const s of spans) {
      this.observeSpan(s, factsOf(s));
      bySpan.set(`${s.traceId}/${s.spanId}`, { scope: s.scope, scopeVersion: s.scopeVersion, service: s.service });
    }
    for (const c of calls) {
      const origin = bySpan.get(`${c.traceId}/${c.spanId}`) ??
        originOf?.(c) ?? { scope: '', scopeVersion: '', service: c.service };
      this.observeCall(origin, c.outcome);
    }
  }

  /** Every row, the ones with the most LLM-looking spans first. */
  report(): CoverageRow[] {
    const rows: CoverageRow[] = [];
    for (const { keys, unvalidated, ...counts } of this.entries.values()) {
      rows.push({ ...counts, unvalidated: { ...unvalidated }, topKeys: keys.top(this.opts.topKeys) });
    }
    const byName = (a: CoverageRow, b: CoverageRow) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0);
    return rows.sort((a, b) => b.llmSpans - a.llmSpans || b.spans - a.spans || byName(a, b));
  }

  /** Rows currently held (at most maxEntries + 1). */
  get size(): number {
    return this.entries.size;
  }

  private entry(scope: string, scopeVersion: string, service: string): Entry {
    const max = this.opts.maxLength;
    const s = scope.length > max ? scope.slice(0, max) : scope;
    const v = scopeVersion.length > max ? scopeVersion.slice(0, max) : scopeVersion;
    const svc = service.length > max ? service.slice(0, max) : service;
    const key = `${s}\u0000${v}\u0000${svc}`;
    let e = this.entries.get(key);
    if (e) return e;
    if (this.entries.size >= this.opts.maxEntries) return this.other();
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
      keys: new TopKeys(this.opts.keysPerEntry),
    };
  }
}
