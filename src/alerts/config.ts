/**
 * The `alerts` section of the config: its file schema (merged into src/config.ts's fileSchema),
 * its typed form, and SLACK_WEBHOOK_URL. The keys of each rule kind and notifier kind are
 * checked by their registries when the services are built (setup.ts), so a kind registered by
 * another feature is validated the same way; every problem is reported with its path.
 */
import path from 'node:path';
import { parseDuration } from '../util/duration.js';

const duration = { type: 'string', pattern: '^\\d+(\\.\\d+)?(ms|s|m|h|d)$' } as const;
const name = { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,100}$' } as const;

export const alertsFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    interval: { ...duration, default: '30s' },
    public_url: { type: 'string', pattern: '^https?://' },
    rules: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        required: ['name', 'kind'],
        // The kind's own keys (window, threshold, …) are checked against the kind's schema in setup.ts.
        additionalProperties: true,
        properties: {
          name,
          kind: { type: 'string', minLength: 1 },
          for: { ...duration, default: '0s' },
          keep_firing_for: { ...duration, default: '0s' },
          repeat_interval: { ...duration, default: '4h' },
          severity: { enum: ['critical', 'warning', 'info'], default: 'warning' },
          notify: { type: 'array', items: name, uniqueItems: true },
        },
      },
    },
    notifiers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'kind'],
        additionalProperties: false,
        properties: {
          name,
          kind: { type: 'string', minLength: 1 },
          url: { type: 'string', minLength: 1 },
          url_file: { type: 'string', minLength: 1 },
          allow_any_url: { type: 'boolean', default: false },
          allow_private_addresses: { type: 'boolean', default: false },
        },
      },
    },
    delivery: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        timeout: { ...duration, default: '10s' },
        min_interval: { ...duration, default: '1s' },
        min_backoff: { ...duration, default: '1s' },
        max_backoff: { ...duration, default: '5m' },
        give_up_after: { ...duration, default: '24h' },
        poll: { ...duration, default: '250ms' },
      },
    },
  },
} as const;

export interface AlertsFileShape {
  interval: string;
  public_url?: string;
  rules: ({ name: string; kind: string; for: string; keep_firing_for: string; repeat_interval: string; severity: string; notify?: string[] } & Record<string, unknown>)[];
  notifiers?: { name: string; kind: string; url?: string; url_file?: string; allow_any_url: boolean; allow_private_addresses: boolean }[];
  delivery: { timeout: string; min_interval: string; min_backoff: string; max_backoff: string; give_up_after: string; poll: string };
}

export interface AlertRuleConfig {
  name: string;
  kind: string;
  forMs: number;
  keepFiringForMs: number;
  repeatIntervalMs: number;
  severity: 'critical' | 'warning' | 'info';
  /** Notifier names; absent = every notifier. */
  notify?: string[];
  /** The kind's own keys as written (checked and given defaults in setup.ts). */
  params: Record<string, unknown>;
}

export interface NotifierConfig {
  name: string;
  kind: string;
  /** A secret: never logged, never returned by the API. */
  url?: string;
  /** Absolute path of a file holding the URL (a mounted secret), read at start. */
  urlFile?: string;
  allowAnyUrl: boolean;
  allowPrivateAddresses: boolean;
}

export interface AlertsConfig {
  intervalMs: number;
  publicUrl?: string;
  rules: AlertRuleConfig[];
  /** Default when none are configured: one `log` notifier. */
  notifiers: NotifierConfig[];
  delivery: { timeoutMs: number; minIntervalMs: number; minBackoffMs: number; maxBackoffMs: number; giveUpAfterMs: number; pollMs: number };
}

const COMMON_RULE_KEYS = new Set(['name', 'kind', 'for', 'keep_firing_for', 'repeat_interval', 'severity', 'notify']);

/**
 * SLACK_WEBHOOK_URL fills the url of every slack notifier that names none (neither url nor
 * url_file); with no slack notifier configured it adds one named `slack`.
 */
export function applyAlertsEnv(raw: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>): void {
  const url = env.SLACK_WEBHOOK_URL;
  if (!url) return;
  const alerts = raw.alerts && typeof raw.alerts === 'object' && !Array.isArray(raw.alerts) ? (raw.alerts as Record<string, unknown>) : (raw.alerts = {}) as Record<string, unknown>;
  if (alerts.notifiers !== undefined && !Array.isArray(alerts.notifiers)) return; // the schema reports it
  const list = ((alerts.notifiers as Record<string, unknown>[] | undefined) ?? []).map((n) => ({ ...n }));
  const slack = list.filter((n) => n && n.kind === 'slack');
  for (const n of slack) if (n.url === undefined && n.url_file === undefined) n.url = url;
  if (slack.length === 0) list.push({ name: 'slack', kind: 'slack', url });
  alerts.notifiers = list;
}

export function toAlertsConfig(f: AlertsFileShape, baseDir: string): AlertsConfig {
  const ms = (d: string) => parseDuration(d)!;
  const notifiers = f.notifiers ?? [{ name: 'log', kind: 'log', allow_any_url: false, allow_private_addresses: false }];
  return {
    intervalMs: ms(f.interval),
    ...(f.public_url ? { publicUrl: f.public_url.replace(/\/+$/, '') } : {}),
    rules: f.rules.map((r) => ({
      name: r.name,
      kind: r.kind,
      forMs: ms(r.for),
      keepFiringForMs: ms(r.keep_firing_for),
      repeatIntervalMs: ms(r.repeat_interval),
      severity: r.severity as AlertRuleConfig['severity'],
      ...(r.notify ? { notify: [...r.notify] } : {}),
      params: Object.fromEntries(Object.entries(r).filter(([k]) => !COMMON_RULE_KEYS.has(k))),
    })),
    notifiers: notifiers.map((n) => ({
      name: n.name,
      kind: n.kind,
      ...(n.url ? { url: n.url } : {}),
      ...(n.url_file ? { urlFile: path.resolve(baseDir, n.url_file) } : {}),
      allowAnyUrl: n.allow_any_url,
      allowPrivateAddresses: n.allow_private_addresses,
    })),
    delivery: {
      timeoutMs: ms(f.delivery.timeout),
      minIntervalMs: ms(f.delivery.min_interval),
      minBackoffMs: ms(f.delivery.min_backoff),
      maxBackoffMs: ms(f.delivery.max_backoff),
      giveUpAfterMs: ms(f.delivery.give_up_after),
      pollMs: Math.max(10, ms(f.delivery.poll)),
    },
  };
}
