/**
 * Feedback wired into a running toolwatch: one way in for every path (POST /api/feedback, span
 * attributes, Langfuse scores) — stored per trace, the service resolved when the sender did not
 * name it, counted in toolwatch_feedback_total once per new or changed value.
 */
import type { Logger } from 'pino';
import type { LabelCap } from '../metrics/label-cap.js';
import type { Metrics } from '../metrics/registry.js';
import type { SpanTap } from '../pipeline/pipeline.js';
import type { Sql } from '../store/sql.js';
import { feedbackFromSpans } from './spans.js';
import { FeedbackStore, type RecordResult } from './store.js';
import { bucketOf, type FeedbackItem } from './value.js';

export interface FeedbackWiring {
  sql: Sql;
  metrics: Pick<Metrics, 'feedback' | 'feedbackIgnored'>;
  labels: LabelCap;
  now: () => number;
  log?: Pick<Logger, 'warn'>;
}

export class Feedback {
  readonly store: FeedbackStore;
  /** The pipeline's span tap: feedback attributes on any span of a trace. */
  readonly tap: SpanTap;

  constructor(private readonly w: FeedbackWiring) {
    this.store = new FeedbackStore(w.sql);
    this.tap = {
      take: (spans) => {
        const found = feedbackFromSpans(spans);
        if (!found) return undefined;
        if (found.unreadable) this.ignored('span', 'bad_value', found.unreadable);
        return found.items.length ? this.record(found.items).then(() => undefined) : undefined;
      },
    };
  }

  /** Stores items; those without a service (and no stored row) take the trace's known service, else `fallbackService`. */
  async record(items: readonly FeedbackItem[], fallbackService = 'unknown'): Promise<RecordResult> {
    const res = await this.store.record(items, this.w.now(), async (ids) => {
      const known = await this.store.servicesOf(ids);
      for (const id of ids) if (!known.has(id)) known.set(id, fallbackService);
      return known;
    });
    for (const it of res.counted)
      this.w.metrics.feedback.inc({
        service: this.w.labels.value('service', it.service.slice(0, 200)),
        value: bucketOf(it.value),
      });
    return res;
  }

  ignored(source: 'span' | 'langfuse', reason: 'bad_value' | 'no_trace', n = 1): void {
    this.w.metrics.feedbackIgnored.inc({ source, reason }, n);
  }
}
