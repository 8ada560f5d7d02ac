/**
 * What one batch's spans add to the coverage report, read while the batch is read — right after the
 * dialect readers, while its spans are fresh in the CPU's caches — and counted into the report
 * (CoverageTracker.observeBatch) once the batch committed. It keeps counts per run of spans sharing a
 * scope and service and the attribute key lists the report counts, not the spans: a batch need not
 * hold its spans until its commit for the report's sake.
 */
import type { Span, SpanFacts } from '../model.js';
import { looksLikeLlmSpan } from './llm-looking.js';

/** What the report counted a span as: no LLM look, LLM-looking, LLM-looking and no reader knew it. */
export type SpanCoverage = 'other' | 'llm' | 'unrecognized';

/** A report row's span counts (or a run's, before they go to a row). */
export interface SpanCounts {
  spans: number;
  llmSpans: number;
  unrecognizedSpans: number;
  llmSpansWithoutCalls: number;
}

/** Consecutive spans of a batch with the same scope, version and service, and what they add. */
export interface SpanRun extends SpanCounts {
  scope: string;
  scopeVersion: string;
  service: string;
  /** The attribute keys of its LLM-looking spans without calls, span by span (for the row's top keys). */
  keyLists: (readonly string[])[];
}

function hasCalls(f: SpanFacts): boolean {
  return f.proposals.length > 0 || f.execution !== undefined || (f.summaryCalls?.length ?? 0) > 0;
}

/**
 * Counts a span (and what the readers made of it: undefined when no reader recognised it) into `c`.
 * Returns its attribute keys when they go to the top keys (an LLM-looking span without calls), else
 * what it was. Keys are listed only then.
 */
export function countSpan(c: SpanCounts, span: Span, facts: SpanFacts | undefined): readonly string[] | SpanCoverage {
  c.spans++;
  if (facts === undefined && !looksLikeLlmSpan(span)) return 'other';
  c.llmSpans++;
  if (facts === undefined) c.unrecognizedSpans++;
  else if (hasCalls(facts)) return 'llm';
  c.llmSpansWithoutCalls++;
  return Object.keys(span.attributes);
}

export class BatchCoverage {
  readonly runs: SpanRun[] = [];
  private last: SpanRun | undefined;

  /**
   * A span of the batch and what the readers made of it (undefined: no reader recognised it); returns
   * what CoverageTracker.observeSpan would ('unrecognized': the caller's metric).
   */
  add(span: Span, facts: SpanFacts | undefined): SpanCoverage {
    let run = this.last;
    if (!run || run.scope !== span.scope || run.scopeVersion !== span.scopeVersion || run.service !== span.service) {
      run = {
        scope: span.scope,
        scopeVersion: span.scopeVersion,
        service: span.service,
        spans: 0,
        llmSpans: 0,
        unrecognizedSpans: 0,
        llmSpansWithoutCalls: 0,
        keyLists: [],
      };
      this.runs.push(run);
      this.last = run;
    }
    const read = countSpan(run, span, facts);
    if (typeof read === 'string') return read;
    run.keyLists.push(read);
    return facts === undefined ? 'unrecognized' : 'llm';
  }

  /** LLM-looking spans no reader recognised, per scope, in the order the scopes first had one; undefined: none. */
  unrecognizedByScope(): Map<string, number> | undefined {
    let out: Map<string, number> | undefined;
    for (const r of this.runs) {
      if (r.unrecognizedSpans === 0) continue;
      out ??= new Map();
      out.set(r.scope, (out.get(r.scope) ?? 0) + r.unrecognizedSpans);
    }
    return out;
  }
}
