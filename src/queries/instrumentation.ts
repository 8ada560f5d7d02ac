/**
 * Instrumentation coverage (GET /api/instrumentation and the built-in page): per instrumentation
 * scope and service, what arrived, what looked like LLM or tool spans, what was read from them, and
 * the attribute keys of the LLM-looking spans no call was read from. Kept in memory by this process
 * since it started (like the OTLP counts of /api/sources); bounded, and never any attribute value.
 */
import type { CoverageRow, CoverageTracker } from '../instrumentation/coverage.js';
import type { Reader } from './reader.js';
import { isRestricted } from '../util/service-view.js';

/** The running report and when this process started keeping it. */
export interface CoverageSource {
  tracker: CoverageTracker;
  sinceMs: number;
}

export interface InstrumentationReport {
  countsSince: 'process start';
  /** When this process started counting (RFC 3339). */
  since: string;
  limits: { rows: number; keysPerRow: number; topKeys: number };
  /** Most LLM-looking spans first. */
  scopes: CoverageRow[];
}

/**
 * `service` keeps that service's rows only; a reader restricted to some services sees theirs only.
 * The folded `_other` row mixes services, so it is shown only to an unfiltered, unrestricted reader.
 */
export function instrumentationReport(read: Reader, q: { service?: string } = {}): InstrumentationReport {
  const src = read.coverage;
  const o = src.tracker.options;
  const view = read.view;
  return {
    countsSince: 'process start',
    since: new Date(src.sinceMs).toISOString(),
    limits: { rows: o.maxEntries, keysPerRow: o.keysPerEntry, topKeys: o.topKeys },
    scopes: src.tracker.report({
      ...(q.service !== undefined ? { service: q.service } : {}),
      ...(isRestricted(view) ? { sees: (s: string) => view.sees(s) } : {}),
    }),
  };
}
