/**
 * Draft eval cases from what the store kept (GET /api/export/cases and `toolwatch eval export`):
 * the replay export over this store, its judge and feedback state, redacted with the judge's
 * redactor (judge.redact). Filters, service included, are applied in src/replay/export.ts.
 */
import type { FeedbackStore } from '../feedback/store.js';
import { createRedactor, type RedactionConfig } from '../judge/redact.js';
import type { JudgeStore } from '../judge/store.js';
import { exportCases } from '../replay/export.js';
import type { ExportFilters } from '../replay/filters.js';
import type { Sql } from '../store/sql.js';

export interface ExportStores {
  sql: Sql;
  judge: JudgeStore;
  feedback: FeedbackStore;
  redact: RedactionConfig;
}

export function exportedCases(s: ExportStores, filters: ExportFilters) {
  return exportCases(
    { sql: s.sql, judge: s.judge, feedback: s.feedback, redactor: () => createRedactor(s.redact) },
    filters,
  );
}
