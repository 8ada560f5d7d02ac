/**
 * The alerts' Attributor (src/alerts/cause.ts) over the store: the same attribute() and the same
 * presentation as a problem's `likely_change` (src/queries/attribution.ts), so an alert and a problem
 * of one failure name one cause. The services hand it to alerting when changes are on.
 */
import type { AlertAttribution, Attributor, CauseSubject } from '../alerts/cause.js';
import type { AttributionConfig } from '../changes/config.js';
import type { Sql } from '../store/sql.js';
import { attribute, presentAttribution } from './attribution.js';

export function alertAttributor(sql: Sql, config: AttributionConfig): Attributor {
  return async (cause: CauseSubject, beganMs: number, nowMs: number): Promise<AlertAttribution> => {
    const began = new Date(beganMs).toISOString();
    const window = `${Math.round(config.windowMs / 60_000)}m`;
    if (cause.service === undefined || (cause.of === 'share' && cause.tool === undefined))
      return {
        began,
        window,
        likely_change: null,
        text:
          cause.service === undefined
            ? 'not attributed: the alert is not of one service (changes are per service: group the rule by service)'
            : 'not attributed: no tool’s share rose',
        candidates: [],
      };
    const subject = {
      service: cause.service,
      ...(cause.tool !== undefined ? { tool: cause.tool } : {}),
      outcomes: cause.outcomes,
      of: cause.of,
      beganMs,
    };
    const a = await attribute(sql, subject, { ...config, nowMs });
    const shown = presentAttribution(subject, a, config.windowMs);
    return { began, likely_change: shown.likely_change, ...shown.attribution };
  };
}
