/**
 * Draft eval cases from what the store kept (GET /api/export/cases): the replay export over this
 * reader's store, judge and feedback state, redacted with the judge's redactor (judge.redact), and
 * narrowed to the reader's services in every query (src/replay/export.ts applies the view in SQL).
 */
import type { FeedbackStore } from '../feedback/store.js';
import type { Judge } from '../judge/service.js';
import { createRedactor } from '../redact/redact.js';
import { exportCases } from '../replay/export.js';
import type { ExportFilters } from '../replay/filters.js';
import type { Reader } from './reader.js';

export function exportedCases(r: Reader & { judge: Judge; feedback: FeedbackStore }, filters: ExportFilters) {
  const redact = r.judge.config.redact;
  return exportCases(
    {
      sql: r.store.sql,
      judge: r.judge.store,
      feedback: r.feedback,
      redactor: () => createRedactor(redact),
      view: r.view,
    },
    filters,
  );
}
