/**
 * Notifiers by kind, in a registry built per service instance (notifiers/index.ts): `slack`,
 * `webhook`, `alertmanager` and `log`; another kind (PagerDuty, e-mail) is one more register call.
 */
import type { Logger } from 'pino';
import type { DeliveryPolicy, SendOutcome } from '../../store/outbox.js';
import type { AlertMessage } from '../message.js';

/** ok; retry: worth trying again (5xx, 429, timeout, network); permanent (4xx, redirect, blocked address). */
export type SendResult = SendOutcome;

export interface Notifier {
  readonly name: string;
  readonly kind: string;
  /** What may be shown of the destination (never the secret part of a URL). */
  readonly target: string;
  send(message: AlertMessage, signal: AbortSignal): Promise<SendResult>;
  /** What this kind changes in the delivery policy (Alertmanager takes messages as fast as they come). */
  readonly delivery?: Partial<Pick<DeliveryPolicy, 'minIntervalMs' | 'perPass'>>;
  /**
   * While an alert is firing, send it again at least this often, whatever its rule's repeat_interval
   * (Alertmanager resolves an alert that is not re-sent before its endsAt).
   */
  readonly resendMs?: number;
}

/** A notifier's settings after config and secrets are resolved. */
export interface NotifierSettings<O = Record<string, unknown>> {
  name: string;
  kind: string;
  url?: string;
  /** The kind's own keys, as the config file spells them, checked against its schema, defaults applied. */
  options: O;
}

export interface NotifierDeps {
  timeoutMs: number;
  /** How often the rules are evaluated (alerts.interval): re-sends happen at evaluations. */
  evaluationIntervalMs: number;
  log: Logger;
  now: () => number;
}

/** A problem with the URL (a phrase), or with another key of the notifier. */
export type NotifierProblem = string | { key: string; problem: string };

/**
 * A notifier kind: one file (slack.ts, webhook.ts…) and one register line (index.ts). `name`, `kind`,
 * `url` and `url_file` are every kind's (the URL is a secret, resolved once for all kinds); the rest
 * of a notifier's keys belong to its kind, which declares them in `schema`: the config phase checks
 * them against it (defaults applied) and hands them to check() and create() as `options`.
 */
export interface NotifierKind<O = Record<string, unknown>> {
  /** Whether the kind needs a URL (from `url`, `url_file` or, for slack, SLACK_WEBHOOK_URL). */
  needsUrl: boolean;
  /** JSON Schema (an object schema, additionalProperties false) of the kind's own keys. */
  schema: { type: 'object'; additionalProperties: false; properties: Record<string, unknown> };
  /** Problems with the settings a schema cannot see (the caller prefixes the config path). */
  check(s: NotifierSettings<O>): NotifierProblem[];
  create(s: NotifierSettings<O>, deps: NotifierDeps): Notifier;
}
