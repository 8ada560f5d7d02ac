/**
 * The port through which a firing alert is told its likely cause: which change of its service came
 * shortly before it began. alerts/ only says what is compared (a rule kind's `cause()`: the group's
 * service and tool, the failures counted, over calls, executions or the service's calls) and where
 * the answer goes (the alert's state, its message, GET /api/alerts); the change events and their
 * comparison live above (src/changes/attribute.ts, read by src/queries/alert-attribution.ts — the
 * same code that names a problem's likely change), handed in by the services as an `Attributor`.
 */
import { FAILURE_OUTCOMES } from '../model.js';

/** What a kind compares before and after each change, for one group of a firing alert. */
export interface CauseSubject {
  /** The group's service; undefined when the alert spans every service (nothing is attributed then). */
  service?: string;
  /** The tool whose rate is compared; undefined = the whole service. */
  tool?: string;
  /**
   * What a failure is: call outcomes (`of: 'calls'`), execution statuses (`of: 'executions'`); for
   * `of: 'share'` none — the rate is the tool's share of the service's calls (drift).
   */
  outcomes: readonly string[];
  of: 'calls' | 'executions' | 'share';
}

/** A window's rate: the failures (or the tool's calls, for a share) of the calls in it. */
export interface RateWindow {
  since: string | null;
  until: string | null;
  calls: number;
  failures: number;
  rate: number;
}

/** One change as an alert shows it (the same shape as a problem's `likely_change`). */
export interface AttributedChange {
  change: { id: number; time: string | null; service: string; kind: string; tool?: string; from: string; to: string };
  before: RateWindow;
  after: RateWindow;
  test: string;
  p: number;
  pText: string;
  /** Of the failures after the change, the share on its new value; null when not counted per value. */
  shareOnNew: number | null;
  significant: boolean;
  /** The sentence for people. */
  text: string;
}

/** A firing alert's attribution: the change named (or null, said plainly in `text`) and every candidate. */
export interface AlertAttribution {
  /** The instant changes were looked for before: when the alert's condition first held (its pending start). */
  began: string;
  /** How far back (changes.attribution_window), e.g. "360m". */
  window: string;
  likely_change: AttributedChange | null;
  /** "refund_order's definition changed at … " or "no change of this service in the 6 h before it began". */
  text: string;
  candidates: AttributedChange[];
}

/** Computes an attribution (the services hand one in; absent, alerts carry none). A subject without a service gets a plain "not attributed". */
export type Attributor = (subject: CauseSubject, beganMs: number, nowMs: number) => Promise<AlertAttribution>;

/** The attribution line of a message, as text for people. */
export function attributionLine(a: AlertAttribution): string {
  return a.likely_change ? `Likely change: ${a.text}.` : `Changes: ${a.text}.`;
}

/** The group's service: its label, else the rule's `service`. */
function serviceOf(params: { service?: unknown }, labels: Record<string, string>): { service?: string } {
  const service = labels.service ?? (typeof params.service === 'string' ? params.service : undefined);
  return service === undefined ? {} : { service };
}

/** The cause of a structural error-rate alert: the group's structural failures over its checked calls. */
export function structuralCause(params: { service?: unknown }, labels: Record<string, string>): CauseSubject {
  return {
    ...serviceOf(params, labels),
    ...(labels.tool ? { tool: labels.tool } : {}),
    outcomes: FAILURE_OUTCOMES,
    of: 'calls',
  };
}

/** The cause of an execution alert: the group's executions with one of `statuses` over all its executions. */
export function executionCause(
  params: { service?: unknown; statuses: readonly string[] },
  labels: Record<string, string>,
): CauseSubject {
  return {
    ...serviceOf(params, labels),
    ...(labels.tool ? { tool: labels.tool } : {}),
    outcomes: params.statuses,
    of: 'executions',
  };
}

/** The cause of a drift alert: the share of the tool that moved most among the service's calls. */
export function shareCause(
  params: { service?: unknown },
  labels: Record<string, string>,
  tool: string | undefined,
): CauseSubject {
  return { ...serviceOf(params, labels), ...(tool ? { tool } : {}), outcomes: [], of: 'share' };
}
