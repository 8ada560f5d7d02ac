/**
 * The alert state machine, as Prometheus and Alertmanager define it, as one pure function:
 *
 *   inactive ──active──▶ pending ──active for `for`──▶ firing ──inactive (after keep_firing_for)──▶ resolved
 *       ▲                   │                             │ ▲                                          │
 *       └────inactive───────┘                             └─┘ active: repeat every repeat_interval      └──active──▶ pending
 *
 * - `for` 0 fires on the first active evaluation.
 * - an observation may `keep` an alert that has started without being able to start one.
 * - pending that turns inactive before `for` is forgotten and sends nothing (flapping is silent).
 * - keep_firing_for: a firing alert stays firing until its condition has been false that long.
 * - firing sends one message on entry and again every repeat_interval while it lasts; resolved
 *   sends exactly one message. No clock inside: `now` comes in.
 */
import type { AlertAttribution } from './cause.js';
import type { AlertDetails, Observation } from './rules.js';

export type AlertState = 'pending' | 'firing' | 'resolved';

export interface AlertInstance {
  rule: string;
  groupKey: string;
  labels: Record<string, string>;
  state: AlertState;
  /** When the condition became true (start of pending). */
  activeSince: number;
  firingSince: number | null;
  /** The last evaluation that found the condition true. */
  lastActiveAt: number;
  /** The last firing message (for repeat_interval). */
  lastNotifiedAt: number | null;
  /** When each notifier with a resend interval (Alertmanager) was last sent this firing alert. */
  resentAt?: Record<string, number>;
  resolvedAt: number | null;
  evaluatedAt: number;
  value: number;
  threshold: number;
  summary: string;
  details: AlertDetails;
  /** The likely change, computed when a firing message is built (src/alerts/cause.ts); kept until the alert ends. */
  attribution?: AlertAttribution;
}

export interface Timing {
  forMs: number;
  keepFiringForMs: number;
  repeatIntervalMs: number;
}

export interface Transition {
  /** null: no alert (inactive). */
  next: AlertInstance | null;
  send: 'firing' | 'resolved' | null;
  /** A firing message that repeats one already sent. */
  repeat: boolean;
}

/**
 * One evaluation of one group. `obs` is null when the group produced no reading this time (no
 * calls at all in the window): that counts as inactive, as an absent series does in Prometheus.
 */
export function step(
  prev: AlertInstance | null,
  obs: Observation | null,
  t: Timing,
  now: number,
  id: { rule: string; groupKey: string },
): Transition {
  // A pending or firing alert lasts while the observation keeps it; only `active` starts one.
  const started = prev !== null && prev.state !== 'resolved';
  const active = obs?.active === true || (started && obs?.keep === true);
  const reading = obs
    ? { labels: obs.labels, value: obs.value, threshold: obs.threshold, summary: obs.summary, details: obs.details }
    : {};
  const none: Transition = { next: null, send: null, repeat: false };

  if (active) {
    if (!prev || prev.state === 'resolved') {
      const pending: AlertInstance = {
        rule: id.rule,
        groupKey: id.groupKey,
        labels: obs!.labels,
        state: 'pending',
        activeSince: now,
        firingSince: null,
        lastActiveAt: now,
        lastNotifiedAt: null,
        resolvedAt: null,
        evaluatedAt: now,
        value: obs!.value,
        threshold: obs!.threshold,
        summary: obs!.summary,
        details: obs!.details,
      };
      if (t.forMs > 0) return { next: pending, send: null, repeat: false };
      return {
        next: { ...pending, state: 'firing', firingSince: now, lastNotifiedAt: now },
        send: 'firing',
        repeat: false,
      };
    }
    const cur = { ...prev, ...reading, lastActiveAt: now, evaluatedAt: now };
    if (prev.state === 'pending') {
      if (now - prev.activeSince < t.forMs) return { next: cur, send: null, repeat: false };
      return {
        next: { ...cur, state: 'firing', firingSince: now, lastNotifiedAt: now },
        send: 'firing',
        repeat: false,
      };
    }
    return repeatIfDue(cur, t, now);
  }

  if (!prev) return none;
  if (prev.state === 'pending') return none; // flapped inside `for`: forgotten, nothing was sent
  if (prev.state === 'resolved') return { next: prev, send: null, repeat: false };
  // firing, condition false
  const cur = { ...prev, ...reading, labels: prev.labels, evaluatedAt: now };
  if (now - prev.lastActiveAt < t.keepFiringForMs) return repeatIfDue(cur, t, now);
  return { next: { ...cur, state: 'resolved', resolvedAt: now }, send: 'resolved', repeat: false };
}

function repeatIfDue(cur: AlertInstance, t: Timing, now: number): Transition {
  if (cur.lastNotifiedAt !== null && now - cur.lastNotifiedAt >= t.repeatIntervalMs) {
    return { next: { ...cur, lastNotifiedAt: now }, send: 'firing', repeat: true };
  }
  return { next: cur, send: null, repeat: false };
}
