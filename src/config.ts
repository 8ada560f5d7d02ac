/**
 * One typed config: the YAML file, then environment overrides, validated once with every bad
 * field reported, then frozen. Nothing else in toolwatch reads process.env.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { parseDuration } from './util/duration.js';
import { deepFreeze } from './util/deep-freeze.js';
import { judgeFileSchema, toJudgeConfig, type JudgeConfig, type JudgeFileShape } from './judge/config.js';
import { alertsFileSchema, applyAlertsEnv, toAlertsConfig, type AlertsConfig, type AlertsFileShape } from './alerts/config.js';
import { applyLangfuseEnv, langfuseFileSchema, toLangfuseConfig, type LangfuseConfig, type LangfuseFileShape } from './ingest/langfuse-config.js';

export interface ToolSource {
  /** Only this service's calls are checked against these tools; absent = every service. */
  service?: string;
  /** Absolute path (resolved against the config file's folder). */
  path: string;
}

export interface Config {
  configPath: string | undefined;
  server: { host: string; port: number; shutdownGraceMs: number };
  logLevel: string;
  /** A SQLite file path (sqlite:/file: prefixes removed) or a postgres:// URL. */
  database: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };
  ingest: {
    /** Applies to the body as sent and again after gunzip. */
    maxBodyBytes: number;
    /** Batches waiting for the store; past this the receiver answers 503 + Retry-After. */
    maxPendingBatches: number;
    retryAfterSeconds: number;
    maxAttributeDepth: number;
    /** Batches in flight at once; past this the receiver answers 503 + Retry-After (0 = no limit). */
    maxInflightRequests: number;
    /** Smoothed event-loop delay past which new batches get 503 + Retry-After (0 = never). */
    maxEventLoopDelayMs: number;
  };
  dedupe: { maxTraces: number; maxCallsPerTrace: number; traceTtlMs: number; executionGraceMs: number };
  metrics: { maxLabelValues: number };
  store: { failuresPerToolPerMinute: number; retentionDays: number; sqliteSynchronous: 'NORMAL' | 'FULL' };
  tools: ToolSource[];
  /** The hourly LLM judge (src/judge/config.ts); apiKey comes from env JUDGE_API_KEY. */
  judge: JudgeConfig;
  /** Alert rules and notifiers (src/alerts/config.ts); a Slack URL may come from env SLACK_WEBHOOK_URL. */
  alerts: AlertsConfig;
  /** Langfuse as a source (src/ingest/langfuse-config.ts); keys from env LANGFUSE_PUBLIC_KEY / LANGFUSE_SECRET_KEY. */
  langfuse: LangfuseConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const duration = { type: 'string', pattern: '^\\d+(\\.\\d+)?(ms|s|m|h|d)$' } as const;
const posInt = { type: 'integer', minimum: 1 } as const;

/** The file's schema. Defaults live here, so the YAML in config/ only documents them. */
export const fileSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        host: { type: 'string', minLength: 1, default: '127.0.0.1' },
        port: { type: 'integer', minimum: 0, maximum: 65535, default: 4318 },
        shutdown_grace: { ...duration, default: '10s' },
      },
    },
    log_level: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    database_url: { type: 'string', minLength: 1, default: './data/toolwatch.db' },
    ingest: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        max_body_bytes: { ...posInt, default: 8 * 1024 * 1024 },
        max_pending_batches: { ...posInt, default: 256 },
        retry_after_seconds: { ...posInt, default: 1 },
        max_attribute_depth: { type: 'integer', minimum: 2, maximum: 256, default: 32 },
        max_inflight_requests: { type: 'integer', minimum: 0, default: 1024 },
        max_event_loop_delay: { ...duration, default: '250ms' },
      },
    },
    dedupe: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        max_traces: { ...posInt, default: 20_000 },
        max_calls_per_trace: { ...posInt, default: 1_000 },
        trace_ttl: { ...duration, default: '1h' },
        execution_grace: { ...duration, default: '10s' },
      },
    },
    metrics: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { max_label_values: { ...posInt, default: 500 } },
    },
    store: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        failures_per_tool_per_minute: { ...posInt, default: 20 },
        retention_days: { ...posInt, default: 14 },
        sqlite_synchronous: { enum: ['NORMAL', 'FULL'], default: 'NORMAL' },
      },
    },
    tools: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path'],
        properties: { service: { type: 'string', minLength: 1 }, path: { type: 'string', minLength: 1 } },
      },
    },
    judge: judgeFileSchema,
    alerts: alertsFileSchema,
    langfuse: langfuseFileSchema,
  },
} as const;

export interface LoadOptions {
  argv?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Values merged over the file (tests use this instead of writing YAML). */
  overrides?: Record<string, unknown>;
}

export const DEFAULT_CONFIG_PATH = 'config/toolwatch.yaml';

/** Reads, validates and freezes the configuration; throws ConfigError listing every problem. */
export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? {};
  const cwd = opts.cwd ?? process.cwd();
  const problems: string[] = [];

  const configPath = pickConfigPath(opts.argv ?? [], env, cwd);
  let raw: Record<string, unknown> = {};
  if (configPath) {
    try {
      const parsed: unknown = parseYaml(readFileSync(configPath, 'utf8'));
      if (parsed == null) raw = {};
      else if (typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
      else problems.push(`${configPath}: the top level must be a mapping`);
    } catch (err) {
      problems.push(`${configPath}: ${(err as Error).message}`);
    }
  }
  raw = mergeDeep(raw, opts.overrides ?? {});
  applyEnv(raw, env, problems);

  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
  const validate = ajv.compile(fileSchema);
  if (!validate(raw)) problems.push(...(validate.errors ?? []).map(describe));
  if (problems.length) throw new ConfigError(problems);

  // Secrets come from the environment only, never from the file.
  const cfg = toConfig(raw as FileShape, configPath, cwd, env, problems);
  // The judge waits this long after a trace's last span; 0 would judge trajectories still running.
  if (cfg.judge.idleMs <= 0) problems.push('judge.idle: must be longer than 0s');
  if (problems.length) throw new ConfigError(problems);
  return deepFreeze(cfg);
}

function pickConfigPath(argv: readonly string[], env: LoadOptions['env'] & object, cwd: string): string | undefined {
  const i = argv.indexOf('--config');
  const fromArg = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--config='))?.slice('--config='.length);
  const explicit = fromArg ?? env.TOOLWATCH_CONFIG;
  if (explicit) return path.resolve(cwd, explicit);
  const fallback = path.resolve(cwd, DEFAULT_CONFIG_PATH);
  try {
    readFileSync(fallback);
    return fallback;
  } catch {
    return undefined;
  }
}

/** Env variables override the file; they are checked by the same schema, named by their variable. */
function applyEnv(raw: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>, problems: string[]) {
  const server = ((raw.server ??= {}) as Record<string, unknown>);
  if (env.HOST) server.host = env.HOST;
  if (env.PORT !== undefined && env.PORT !== '') {
    const port = Number(env.PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT: must be an integer from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
    else server.port = port;
  }
  if (env.DATABASE_URL) raw.database_url = env.DATABASE_URL;
  if (env.LOG_LEVEL) raw.log_level = env.LOG_LEVEL;
  applyAlertsEnv(raw, env);
  applyLangfuseEnv(raw, env);
}

function describe(e: ErrorObject): string {
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
  if (e.keyword === 'additionalProperties') return `${where === '(top level)' ? '' : where + '.'}${String(e.params.additionalProperty)}: unknown key`;
  if (e.keyword === 'enum') return `${where}: must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'pattern') return `${where}: must be a duration such as 30s, 5m, 24h`;
  return `${where}: ${e.message ?? 'is invalid'}`;
}

type FileShape = {
  server: { host: string; port: number; shutdown_grace: string };
  log_level: string;
  database_url: string;
  ingest: {
    max_body_bytes: number;
    max_pending_batches: number;
    retry_after_seconds: number;
    max_attribute_depth: number;
    max_inflight_requests: number;
    max_event_loop_delay: string;
  };
  dedupe: { max_traces: number; max_calls_per_trace: number; trace_ttl: string; execution_grace: string };
  metrics: { max_label_values: number };
  store: { failures_per_tool_per_minute: number; retention_days: number; sqlite_synchronous: 'NORMAL' | 'FULL' };
  tools: { service?: string; path: string }[];
  judge: JudgeFileShape;
  alerts: AlertsFileShape;
  langfuse: LangfuseFileShape;
};

/** Semantic checks a schema cannot express (cron syntax, keys a section needs) add to `problems`. */
function toConfig(f: FileShape, configPath: string | undefined, cwd: string, env: Readonly<Record<string, string | undefined>>, problems: string[]): Config {
  const base = configPath ? path.dirname(configPath) : cwd;
  return {
    configPath,
    server: { host: f.server.host, port: f.server.port, shutdownGraceMs: parseDuration(f.server.shutdown_grace)! },
    logLevel: f.log_level,
    database: parseDatabaseUrl(f.database_url, cwd),
    ingest: {
      maxBodyBytes: f.ingest.max_body_bytes,
      maxPendingBatches: f.ingest.max_pending_batches,
      retryAfterSeconds: f.ingest.retry_after_seconds,
      maxAttributeDepth: f.ingest.max_attribute_depth,
      maxInflightRequests: f.ingest.max_inflight_requests,
      maxEventLoopDelayMs: parseDuration(f.ingest.max_event_loop_delay)!,
    },
    dedupe: {
      maxTraces: f.dedupe.max_traces,
      maxCallsPerTrace: f.dedupe.max_calls_per_trace,
      traceTtlMs: parseDuration(f.dedupe.trace_ttl)!,
      executionGraceMs: parseDuration(f.dedupe.execution_grace)!,
    },
    metrics: { maxLabelValues: f.metrics.max_label_values },
    store: {
      failuresPerToolPerMinute: f.store.failures_per_tool_per_minute,
      retentionDays: f.store.retention_days,
      sqliteSynchronous: f.store.sqlite_synchronous,
    },
    tools: f.tools.map((t) => ({ ...(t.service ? { service: t.service } : {}), path: path.resolve(base, t.path) })),
    judge: { ...toJudgeConfig(f.judge), ...(env.JUDGE_API_KEY ? { apiKey: env.JUDGE_API_KEY } : {}) },
    alerts: toAlertsConfig(f.alerts, base),
    langfuse: toLangfuseConfig(f.langfuse, { publicKey: env.LANGFUSE_PUBLIC_KEY, secretKey: env.LANGFUSE_SECRET_KEY }, problems),
  };
}

export function parseDatabaseUrl(url: string, cwd: string): Config['database'] {
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  const file = url.replace(/^sqlite:(\/\/)?/i, '').replace(/^file:(\/\/)?/i, '');
  return { kind: 'sqlite', path: file === ':memory:' ? file : path.resolve(cwd, file) };
}

function mergeDeep(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (k === '__proto__') continue;
    const prev = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? mergeDeep(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}
