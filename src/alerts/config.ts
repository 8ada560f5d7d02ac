/**
 * The `alerts` section of the config: its file schema (composed into src/config.ts's fileSchema), the
 * typed form derived from it, SLACK_WEBHOOK_URL, and the checks a schema cannot express, run in the
 * config phase with every other problem: each rule's keys against its kind's schema (defaults
 * applied), each notifier against its kind (URL policy), `url_file` secrets read, names unique.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection, SectionContext } from '../util/config-section.js';
import { schemaProblem } from '../util/schema-problem.js';
import { durationMs, durationSchema } from '../util/duration.js';
import type { RuleKinds } from './kinds/index.js';
import type { NotifierKinds, NotifierSettings } from './notifiers/index.js';

const name = { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,100}$' } as const;

export const alertsFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    interval: { ...durationSchema, default: '30s' },
    public_url: { type: 'string', pattern: '^https?://' },
    rules: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        required: ['name', 'kind'],
        // The kind's own keys (window, threshold, …) are checked against the kind's schema below.
        additionalProperties: true,
        properties: {
          name,
          kind: { type: 'string', minLength: 1 },
          for: { ...durationSchema, default: '0s' },
          keep_firing_for: { ...durationSchema, default: '0s' },
          repeat_interval: { ...durationSchema, default: '4h' },
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
        // The kind's own keys (allow_any_url, labels, …) are checked against the kind's schema below.
        additionalProperties: true,
        properties: {
          name,
          kind: { type: 'string', minLength: 1 },
          url: { type: 'string', minLength: 1 },
          url_file: { type: 'string', minLength: 1 },
        },
      },
    },
    delivery: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        timeout: { ...durationSchema, default: '10s' },
        min_interval: { ...durationSchema, default: '1s' },
        min_backoff: { ...durationSchema, default: '1s' },
        max_backoff: { ...durationSchema, default: '5m' },
        give_up_after: { ...durationSchema, default: '24h' },
        poll: { ...durationSchema, default: '250ms' },
      },
    },
  },
} as const;

export type AlertsFileShape = FromSchema<typeof alertsFileSchema>;

export interface AlertRuleConfig {
  name: string;
  kind: string;
  forMs: number;
  keepFiringForMs: number;
  repeatIntervalMs: number;
  severity: 'critical' | 'warning' | 'info';
  /** Notifier names; absent = every notifier. */
  notify?: string[];
  /** The kind's own keys, checked against its schema, with its defaults applied. */
  params: Record<string, unknown>;
}

export interface NotifierConfig {
  name: string;
  kind: string;
  /** A secret (from `url`, `url_file` or SLACK_WEBHOOK_URL): never logged, never returned by the API. */
  url?: string;
  /** Absolute path of the file the URL was read from (a mounted secret). */
  urlFile?: string;
  /** The kind's own keys, checked against its schema, with its defaults applied. */
  options: Record<string, unknown>;
}

export interface AlertsConfig {
  intervalMs: number;
  publicUrl?: string;
  rules: AlertRuleConfig[];
  /** Default when none are configured: one `log` notifier. */
  notifiers: NotifierConfig[];
  delivery: {
    timeoutMs: number;
    minIntervalMs: number;
    minBackoffMs: number;
    maxBackoffMs: number;
    giveUpAfterMs: number;
    pollMs: number;
  };
}

export interface AlertsContext {
  /** The config file's folder: `url_file` is relative to it. */
  baseDir: string;
  rules: RuleKinds;
  notifiers: NotifierKinds;
  /** Reads a `url_file` (tests may pass another). */
  readFile?: (file: string) => string;
}

const COMMON_RULE_KEYS = new Set(['name', 'kind', 'for', 'keep_firing_for', 'repeat_interval', 'severity', 'notify']);
const COMMON_NOTIFIER_KEYS = new Set(['name', 'kind', 'url', 'url_file']);

/**
 * SLACK_WEBHOOK_URL fills the url of every slack notifier that names none (neither url nor
 * url_file); with no slack notifier configured it adds one named `slack`.
 */
function applyAlertsEnv(raw: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  const url = env.SLACK_WEBHOOK_URL;
  if (!url) return raw;
  const alerts = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  if (alerts.notifiers !== undefined && !Array.isArray(alerts.notifiers)) return alerts; // the schema reports it
  const list = ((alerts.notifiers as Record<string, unknown>[] | undefined) ?? []).map((n) => ({ ...n }));
  const slack = list.filter((n) => n && n.kind === 'slack');
  for (const n of slack) if (n.url === undefined && n.url_file === undefined) n.url = url;
  if (slack.length === 0) list.push({ name: 'slack', kind: 'slack', url });
  alerts.notifiers = list;
  return alerts;
}

/** The typed section; every problem a schema cannot see is added to `problems`, by its path. */
export function toAlertsConfig(f: AlertsFileShape, ctx: AlertsContext, problems: string[]): AlertsConfig {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
  const notifiers = (f.notifiers ?? [{ name: 'log', kind: 'log' }]).map((n, i) => toNotifier(n, i, ctx, ajv, problems));
  const names = new Set<string>();
  notifiers.forEach((n, i) => {
    if (names.has(n.name)) problems.push(`alerts.notifiers.${i}.name: duplicate notifier name ${n.name}`);
    names.add(n.name);
  });
  const ruleNames = new Set<string>();
  const rules = f.rules.map((r, i): AlertRuleConfig => {
    const where = `alerts.rules.${i}`;
    if (ruleNames.has(r.name)) problems.push(`${where}.name: duplicate rule name ${r.name}`);
    ruleNames.add(r.name);
    for (const n of r.notify ?? []) if (!names.has(n)) problems.push(`${where}.notify: no notifier named ${n}`);
    const params = structuredClone(Object.fromEntries(Object.entries(r).filter(([k]) => !COMMON_RULE_KEYS.has(k))));
    const kind = ctx.rules.get(r.kind);
    if (!kind)
      problems.push(
        `${where}.kind: unknown rule kind ${JSON.stringify(r.kind)} (known: ${[...ctx.rules.list()].sort().join(', ')})`,
      );
    else {
      const validate = ajv.compile(kind.schema);
      if (!validate(params)) for (const e of validate.errors ?? []) problems.push(describe(where, e, 'rule kind'));
    }
    return {
      name: r.name,
      kind: r.kind,
      forMs: durationMs(r.for),
      keepFiringForMs: durationMs(r.keep_firing_for),
      repeatIntervalMs: durationMs(r.repeat_interval),
      severity: r.severity,
      ...(r.notify ? { notify: [...r.notify] } : {}),
      params,
    };
  });
  return {
    intervalMs: durationMs(f.interval),
    ...(f.public_url ? { publicUrl: f.public_url.replace(/\/+$/, '') } : {}),
    rules,
    notifiers,
    delivery: {
      timeoutMs: durationMs(f.delivery.timeout),
      minIntervalMs: durationMs(f.delivery.min_interval),
      minBackoffMs: durationMs(f.delivery.min_backoff),
      maxBackoffMs: durationMs(f.delivery.max_backoff),
      giveUpAfterMs: durationMs(f.delivery.give_up_after),
      pollMs: Math.max(10, durationMs(f.delivery.poll)),
    },
  };
}

type NotifierFile = NonNullable<AlertsFileShape['notifiers']>[number];

/**
 * Resolves the URL (url, url_file), checks the kind's own keys against its schema (defaults applied)
 * and the settings against the kind; the URL is a secret: problems name the field, never its value.
 */
function toNotifier(n: NotifierFile, i: number, ctx: AlertsContext, ajv: Ajv, problems: string[]): NotifierConfig {
  const where = `alerts.notifiers.${i}`;
  const urlFile = n.url_file ? path.resolve(ctx.baseDir, n.url_file) : undefined;
  let url = n.url;
  if (n.url && n.url_file) problems.push(`${where}: give url or url_file, not both`);
  if (urlFile) {
    try {
      url = (ctx.readFile ?? ((f) => readFileSync(f, 'utf8')))(urlFile).trim();
      if (!url) problems.push(`${where}.url_file: the file is empty`);
    } catch (err) {
      problems.push(`${where}.url_file: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  const options = structuredClone(
    Object.fromEntries(Object.entries(n).filter(([k]) => !COMMON_NOTIFIER_KEYS.has(k))),
  ) as Record<string, unknown>;
  const cfg: NotifierConfig = {
    name: n.name,
    kind: n.kind,
    ...(url ? { url } : {}),
    ...(urlFile ? { urlFile } : {}),
    options,
  };
  const kind = ctx.notifiers.get(n.kind);
  if (!kind) {
    problems.push(
      `${where}.kind: unknown notifier kind ${JSON.stringify(n.kind)} (known: ${[...ctx.notifiers.list()].sort().join(', ')})`,
    );
    return cfg;
  }
  const validate = ajv.compile(kind.schema);
  if (!validate(options)) {
    for (const e of validate.errors ?? []) problems.push(describe(where, e, `notifier kind ${n.kind}`));
    return cfg;
  }
  if (kind.needsUrl && !url) {
    problems.push(`${where}: needs a url (url, url_file${n.kind === 'slack' ? ' or env SLACK_WEBHOOK_URL' : ''})`);
    return cfg;
  }
  for (const p of kind.check(notifierSettings(cfg))) {
    problems.push(
      typeof p === 'string' ? `${where}.${n.url_file ? 'url_file' : 'url'}: ${p}` : `${where}.${p.key}: ${p.problem}`,
    );
  }
  return cfg;
}

export function notifierSettings(n: NotifierConfig): NotifierSettings {
  return { name: n.name, kind: n.kind, ...(n.url ? { url: n.url } : {}), options: n.options };
}

function describe(where: string, e: ErrorObject, what: string): string {
  const at = e.instancePath ? `${where}.${e.instancePath.slice(1).replace(/\//g, '.')}` : where;
  if (e.keyword === 'additionalProperties')
    return `${at === where ? where : at}.${String(e.params.additionalProperty)}: unknown key for this ${what}`;
  return `${at}: ${schemaProblem(e)}`;
}

/** The loader hands every section's build the rule and notifier kinds alerts are checked against. */
export type AlertsSectionContext = SectionContext & { kinds: { rules: RuleKinds; notifiers: NotifierKinds } };

export const alertsSection: ConfigSection<AlertsFileShape, AlertsConfig, AlertsSectionContext> = {
  key: 'alerts',
  schema: alertsFileSchema,
  env: { names: ['SLACK_WEBHOOK_URL'], apply: (raw, env) => applyAlertsEnv(raw, env) },
  build: (f, ctx, problems) =>
    toAlertsConfig(f, { baseDir: ctx.baseDir, rules: ctx.kinds.rules, notifiers: ctx.kinds.notifiers }, problems),
};
