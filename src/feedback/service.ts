/**
 * Feedback wired into a running toolwatch: one way in for every path (POST /api/feedback, span
 * attributes, Langfuse scores) — stored per trace, the service resolved when the sender did not
 * name it, counted in toolwatch_feedback_total once per new or changed value. A comment is free text
 * from a user: it is stored through store.redact_arguments like every other stored text, failing
 * closed (a comment the redactor cannot handle is left out; the value is still stored).
 */
import type { Logger } from 'pino';
import { labelBudget, type LabelCap } from '../metrics/label-cap.js';
import type { Metrics } from '../metrics/registry.js';
import type { BatchWriter, SpanTap } from '../pipeline/pipeline.js';
import type { ServiceView } from '../util/service-view.js';
import type { StoreRedactor } from '../redact/stored.js';
import type { Sql } from '../store/sql.js';
import { addSpanFeedback, type SpanFeedback } from './spans.js';
import { FeedbackStore, type RecordResult } from './store.js';
import { bucketOf, type FeedbackItem } from './value.js';

export interface FeedbackWiring {
  sql: Sql;
  metrics: Pick<Metrics, 'feedback' | 'feedbackIgnored' | 'redactionFailures'>;
  labels: LabelCap;
  /** Masks comments before they are stored (store.redact_arguments). */
  redactor: StoreRedactor;
  now: () => number;
  log?: Pick<Logger, 'warn'>;
}

export class Feedback {
  readonly store: FeedbackStore;
  /** The pipeline's span tap: feedback attributes on any span of a trace, read with the batch, recorded after it. */
  readonly tap: SpanTap<SpanFeedback>;

  constructor(private readonly w: FeedbackWiring) {
    this.store = new FeedbackStore(w.sql);
    this.tap = {
      read: addSpanFeedback,
      record: (found, _source, writer) => this.recordFound(found, writer),
    };
  }

  private recordFound(found: SpanFeedback | undefined, writer: BatchWriter | undefined): Promise<void> | undefined {
    if (!found) return undefined;
    if (found.unreadable) this.ignored('span', 'bad_value', found.unreadable);
    if (!found.items.length) return undefined;
    return writer?.globs ? this.recordAllowed(found.items, writer) : this.record(found.items).then(() => undefined);
  }

  /**
   * Span feedback of a service-restricted sender, checked as POST /api/feedback checks it: a span of
   * its own service may still name another team's trace (trace ids travel in `traceparent`). What it
   * may not post is left out and counted (`forbidden`); the rest is stored.
   */
  private async recordAllowed(items: readonly FeedbackItem[], writer: ServiceView): Promise<void> {
    const refused = new Set((await this.forbidden(items, writer)).map((p) => p.index));
    if (refused.size) this.ignored('span', 'forbidden', refused.size);
    const allowed = refused.size ? items.filter((_, i) => !refused.has(i)) : items;
    if (allowed.length) await this.record(allowed, undefined, labelBudget(writer.globs));
  }

  /**
   * Stores items; those without a service (and no stored row) take the trace's known service, else
   * `fallbackService`. `budget`: a restricted sender's share of the service label's cap (label-cap.ts).
   */
  async record(items: readonly FeedbackItem[], fallbackService = 'unknown', budget?: string): Promise<RecordResult> {
    const res = await this.store.record(this.redacted(items), this.w.now(), async (ids) => {
      const known = await this.store.servicesOf(ids);
      for (const id of ids) if (!known.has(id)) known.set(id, fallbackService);
      return known;
    });
    for (const it of res.counted)
      this.w.metrics.feedback.inc({
        service: this.w.labels.value('service', it.service.slice(0, 200), budget),
        value: bucketOf(it.value),
      });
    return res;
  }

  /**
   * What a service-restricted sender (an `ingest` token with `services`) may not post: an item naming
   * a service outside its view, a trace toolwatch has seen under such a service, or a trace it has not
   * seen at all without a `service` of the sender's own (else anyone could label any team's trace).
   * Every problem by item index; none for an unrestricted view.
   */
  async forbidden(items: readonly FeedbackItem[], view: ServiceView): Promise<{ index: number; error: string }[]> {
    if (!view.globs) return [];
    const seen = await this.store.servicesSeen(items.map((i) => i.traceId));
    const problems: { index: number; error: string }[] = [];
    items.forEach((it, index) => {
      const services = seen.get(it.traceId);
      if (it.service !== undefined && !view.sees(it.service))
        problems.push({ index, error: `service: ${JSON.stringify(it.service)} is not a service this token may write` });
      else if (services && [...services].some((s) => !view.sees(s)))
        problems.push({ index, error: `trace_id: ${it.traceId} is not a trace of a service this token may write` });
      else if (!services && it.service === undefined)
        problems.push({
          index,
          error: `service: required with this token for a trace toolwatch has not stored (${it.traceId})`,
        });
    });
    return problems;
  }

  /** Items with their comments as stored; a comment the redactor refused is dropped and counted. */
  private redacted(items: readonly FeedbackItem[]): FeedbackItem[] {
    if (this.w.redactor.level === 'none') return [...items];
    let refused = 0;
    const out = items.map((it) => {
      if (it.comment === undefined) return it;
      const r = this.w.redactor.text(it.comment);
      if (r.ok) return r.value === it.comment ? it : { ...it, comment: r.value };
      refused++;
      const { comment: _dropped, ...rest } = it;
      return rest;
    });
    if (refused) this.w.metrics.redactionFailures.inc({ what: 'comment' }, refused);
    return out;
  }

  ignored(source: 'span' | 'langfuse', reason: 'bad_value' | 'no_trace' | 'forbidden', n = 1): void {
    this.w.metrics.feedbackIgnored.inc({ source, reason }, n);
  }
}
