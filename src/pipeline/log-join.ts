/**
 * Joins GenAI events that came as log records to the span they belong to (same trace and span id).
 * OpenTelemetry's own instrumentations (opentelemetry-instrumentation-openai-v2 by default) put the
 * model and tokens on the span and every message — so every tool call — in log records exported on
 * their own schedule, before or after the span:
 *
 * - span first: the model spans seen recently (without calls of their own) are remembered, bounded,
 *   and a log record's calls take the model (and offered tools) of their span at once;
 * - records first: their calls wait, like tool-span-only calls and persisted with the batch, until
 *   the span arrives (merge.ts counts them then, with its model) or `dedupe.execution_grace` passes.
 *
 * A call is keyed by trace and call id whichever way it came, so one that a span carries as a span
 * event and a log record repeats is counted once.
 */
import type { SpanFacts, ToolDef } from '../model.js';

/** Model spans remembered for records that arrive after them. */
export const MAX_REMEMBERED_SPANS = 20_000;

interface Remembered {
  model: string;
  offered: ToolDef[] | undefined;
}

export class LogJoin {
  private readonly spans = new Map<string, Remembered>();

  constructor(private readonly max = MAX_REMEMBERED_SPANS) {}

  /** Called for every batch of span facts: remembers its model spans that carry no calls themselves. */
  remember(facts: readonly SpanFacts[]): void {
    for (const f of facts) {
      if (f.role !== 'model' || f.claimId !== undefined || f.proposals.length > 0 || f.model === undefined) continue;
      const key = `${f.traceId}\u0000${f.spanId}`;
      this.spans.delete(key);
      this.spans.set(key, { model: f.model, offered: f.offered });
      if (this.spans.size > this.max) this.spans.delete(this.spans.keys().next().value!);
    }
  }

  /** Facts read from log records: their claim id, and their span's model, or a wait for it. */
  join(f: SpanFacts, claimId: string): void {
    f.claimId = claimId;
    const s = this.spans.get(`${f.traceId}\u0000${f.spanId}`);
    if (s) {
      f.model ??= s.model;
      if (s.offered !== undefined) f.offered ??= s.offered;
    } else if (f.model === undefined && f.proposals.length > 0) {
      f.awaitsSpan = true;
    }
  }

  get size(): number {
    return this.spans.size;
  }
}
