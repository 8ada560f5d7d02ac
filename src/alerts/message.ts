/** What one notification says, whatever the notifier: stored in the outbox as JSON, rendered at send time. */
import type { AlertDetails } from './rules.js';

export interface AlertMessage {
  status: 'firing' | 'resolved';
  /** A repeat of a firing message already sent (repeat_interval). */
  repeat: boolean;
  rule: string;
  kind: string;
  severity: string;
  labels: Record<string, string>;
  groupKey: string;
  /** Stable per rule and group: receivers can thread or dedupe on it. */
  fingerprint: string;
  value: number;
  threshold: number;
  summary: string;
  details: AlertDetails;
  startsAt: number;
  endsAt: number | null;
  /** Where to look: the failures API for the group (absolute when alerts.public_url is set). */
  link: string;
}
