/**
 * One typed config: the YAML file, then environment overrides, validated once — the schema of every
 * section and every section's own checks (cron, regular expressions, files, rule-kind keys, notifier
 * URLs) — with every problem reported at once, then frozen. Nothing else in toolwatch reads
 * process.env, and nothing after this phase reports a configuration problem.
 *
 * Types are derived from the schemas (json-schema-to-ts: the schemas stay plain JSON Schema for Ajv,
 * so there is no second description of the file to keep in step).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import { parse as parseYaml } from 'yaml';
import { authFileSchema, checkExposure, toAuthConfig, type AuthConfig } from './auth/config.js';
import { alertsFileSchema, applyAlertsEnv, toAlertsConfig, type AlertsConfig } from './alerts/config.js';
import { DEFAULT_CHECK_LIMITS as CHECK, type CheckLimits } from './check/budget.js';
import { loadToolRegistry, type ToolSource } from './check/registry.js';
import { checkJudgeConfig, judgeFileSchema, toJudgeConfig, type JudgeConfig } from './judge/config.js';
import { builtinKinds, type Kinds } from './kinds.js';
import type { StoredRedaction } from './redact/stored.js';
import { readTls, tlsFileSchema, toTlsConfig, type TlsConfig } from './server/tls.js';
import type { DatabaseConfig } from './store/open.js';
import {
  applyLangfuseEnv,
  langfuseFileSchema,
  toLangfuseConfig,
  type LangfuseConfig,
} from './sources/langfuse/config.js';
import { changesFileSchema, toChangesConfig, type ChangesConfig } from './changes/config.js';
import { telemetryFileSchema, toTelemetryConfig, type TelemetryConfig } from './telemetry/config.js';
import { deepFreeze } from './util/deep-freeze.js';
import { durationMs, durationSchema as duration } from './util/duration.js';
import { schemaProblem } from './util/schema-problem.js';

export interface Config {
  configPath: string | undefined;
  server: {
    host: string;
    port: number;
    shutdownGraceMs: number;
    /** Serve HTTPS with this certificate and key (re-read on SIGHUP); absent = plain HTTP. */
    tls?: TlsConfig;
    /** Origins whose browser agents may POST /v1/traces (CORS); `*` = any. */
    corsOrigins: string[];
    /** A request's headers and body must be in within this (Node answers 408 and closes); 0 = never. */
    requestTimeoutMs: number;
    /** A request's headers must be in within this. */
    headersTimeoutMs: number;
    /** A connection without a byte either way for this long is closed (0 = never). */
    connectionTimeoutMs: number;
  };
  /** API tokens and the loopback-only default (src/auth/config.ts); token values never appear here. */
  auth: AuthConfig;
  logLevel: string;
  /** A SQLite file path (sqlite:/file: prefixes removed) or a postgres:// URL. */
  database: DatabaseConfig;
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
    /** A batch's body must be in within this, or 408 (0 = no deadline). */
    bodyTimeoutMs: number;
    /** A body arriving slower than this on average (after its first second) gets 408; 0 = any rate. */
    minBodyBytesPerSecond: number;
    /** The share of max_inflight_requests one token's open batches may take (bodies being read included). */
    maxInflightShare: number;
    /** Batches decoded and recorded at once; the rest wait their turn (0 = no limit). */
    maxConcurrentBatches: number;
    /** A batch that waited this long for its turn gets 503 + Retry-After (0 = never). */
    maxQueueDelayMs: number;
  };
  dedupe: {
    maxTraces: number;
    maxCallsPerTrace: number;
    traceTtlMs: number;
    executionGraceMs: number;
    pendingLeaseMs: number;
    statusGraceMs: number;
  };
  /** Every trace followed to its end for the efficiency statistics (src/efficiency/). */
  trajectories: { idleMs: number; maxTraces: number };
  /** Failed calls grouped by signature (src/problems/). */
  problems: { resolveAfterMs: number; maxPerService: number };
  metrics: { maxLabelValues: number; maxLabelValuesPerToken: number };
  store: {
    failuresPerToolPerMinute: number;
    retentionDays: number;
    sqliteSynchronous: 'NORMAL' | 'FULL';
    /** How long a SQLite statement waits for another process's lock (on the event loop) before 503. */
    sqliteBusyTimeoutMs: number;
    /** What stored arguments and trajectories are masked for (src/redact/stored.ts). */
    redactArguments: StoredRedaction;
  };
  tools: ToolSource[];
  /** What checking may cost per call, per batch and per ingest token (src/check/budget.ts). */
  check: CheckLimits;
  /** The hourly LLM judge (src/judge/config.ts); apiKey comes from env JUDGE_API_KEY. */
  judge: JudgeConfig;
  /** Alert rules and notifiers (src/alerts/config.ts); a Slack URL may come from env SLACK_WEBHOOK_URL. */
  alerts: AlertsConfig;
  /** Langfuse as a source (src/sources/langfuse/config.ts); keys from env LANGFUSE_PUBLIC_KEY / LANGFUSE_SECRET_KEY. */
  langfuse: LangfuseConfig;
  /** toolwatch's own traces (src/telemetry/config.ts); the switch may come from env OTEL_TRACES_EXPORTER. */
  telemetry: TelemetryConfig;
  /** Versions and change events (src/changes/config.ts). */
  changes: ChangesConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

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
        tls: tlsFileSchema,
        cors_origins: {
          type: 'array',
          default: [],
          uniqueItems: true,
          items: { type: 'string', pattern: '^(\\*|https?://[^/\\s*]+)$' },
        },
        request_timeout: { ...duration, default: '60s' },
        headers_timeout: { ...duration, default: '10s' },
        connection_timeout: { ...duration, default: '2m' },
      },
    },
    auth: authFileSchema,
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
        body_timeout: { ...duration, default: '30s' },
        min_body_rate: { type: 'integer', minimum: 0, default: 1024 },
        max_inflight_share: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.5 },
        max_concurrent_batches: { type: 'integer', minimum: 0, default: 64 },
        max_queue_delay: { ...duration, default: '2s' },
      },
    },
    dedupe: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        max_traces: { ...posInt, default: 200_000 },
        max_calls_per_trace: { ...posInt, default: 1_000 },
        trace_ttl: { ...duration, default: '1h' },
        execution_grace: { ...duration, default: '10s' },
        pending_lease: { ...duration, default: '30s' },
        status_grace: { ...duration, default: '2s' },
      },
    },
    trajectories: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        idle: { ...duration, default: '1m' },
        max_traces: { ...posInt, default: 200_000 },
      },
    },
    problems: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        resolve_after: { ...duration, default: '24h' },
        max_per_service: { ...posInt, default: 500 },
      },
    },
    metrics: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        max_label_values: { ...posInt, default: 500 },
        max_label_values_per_token: { ...posInt, default: 100 },
      },
    },
    store: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        failures_per_tool_per_minute: { ...posInt, default: 20 },
        retention_days: { ...posInt, default: 14 },
        sqlite_synchronous: { enum: ['NORMAL', 'FULL'], default: 'NORMAL' },
        sqlite_busy_timeout: { ...duration, default: '100ms' },
        redact_arguments: { enum: ['secrets', 'pii', 'none'], default: 'secrets' },
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
    check: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        max_argument_bytes: { ...posInt, default: CHECK.maxArgumentBytes },
        max_argument_depth: { type: 'integer', minimum: 2, maximum: 1000, default: CHECK.maxArgumentDepth },
        compile_bytes_per_batch: { ...posInt, default: CHECK.compileBytesPerBatch },
        compile_bytes_per_token_per_minute: { ...posInt, default: CHECK.compileBytesPerTokenPerMinute },
        validation_time_per_batch: { ...duration, default: `${CHECK.validationTimePerBatchMs}ms` },
      },
    },
    judge: judgeFileSchema,
    alerts: alertsFileSchema,
    langfuse: langfuseFileSchema,
    telemetry: telemetryFileSchema,
    changes: changesFileSchema,
  },
} as const;

export interface LoadOptions {
  argv?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Values merged over the file (tests use this instead of writing YAML). */
  overrides?: Record<string, unknown>;
  /** The rule and notifier kinds rules and notifiers are checked against (default: the built-in ones). */
  kinds?: Pick<Kinds, 'rules' | 'notifiers'>;
}

export const DEFAULT_CONFIG_PATH = 'config/toolwatch.yaml';

/** The environment variables the loader reads (and nothing else does; README, Environment variables). */
export const CONFIG_ENV = [
  'TOOLWATCH_CONFIG',
  'HOST',
  'PORT',
  'DATABASE_URL',
  'LOG_LEVEL',
  'SLACK_WEBHOOK_URL',
  'JUDGE_API_KEY',
  'LANGFUSE_BASE_URL',
  'LANGFUSE_HOST',
  'LANGFUSE_PUBLIC_KEY',
  'LANGFUSE_SECRET_KEY',
  'OTEL_TRACES_EXPORTER',
  'OTEL_SDK_DISABLED',
  'OTEL_SERVICE_NAME',
] as const;

export interface LoadedConfig {
  config: Config;
  /** The file as validated: defaults filled in, environment overrides applied (secrets included: redact before showing). */
  file: Record<string, unknown>;
}

/** Reads, validates and freezes the configuration; throws ConfigError listing every problem. */
export function loadConfig(opts: LoadOptions = {}): Config {
  return loadConfigDetailed(opts).config;
}

/** loadConfig, and the effective file behind it (for `toolwatch config check`). */
export function loadConfigDetailed(opts: LoadOptions = {}): LoadedConfig {
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
  const errors = validate(raw) ? [] : (validate.errors ?? []);
  problems.push(...errors.map(describe));
  // A section whose shape is wrong cannot be checked further; every other section still is.
  const broken = new Set(errors.map((e) => e.instancePath.split('/')[1] ?? ''));
  const file = structuredClone(raw);
  const cfg = toConfig(
    raw as FileShape,
    { configPath, cwd, env, kinds: opts.kinds ?? builtinKinds(), broken },
    problems,
  );
  if (problems.length || !cfg) throw new ConfigError(problems);
  return { config: deepFreeze(cfg), file };
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
  const server = (raw.server ??= {}) as Record<string, unknown>;
  if (env.HOST) server.host = env.HOST;
  if (env.PORT !== undefined && env.PORT !== '') {
    const port = Number(env.PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      problems.push(`PORT: must be an integer from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
    else server.port = port;
  }
  if (env.DATABASE_URL) raw.database_url = env.DATABASE_URL;
  if (env.LOG_LEVEL) raw.log_level = env.LOG_LEVEL;
  applyAlertsEnv(raw, env);
  applyLangfuseEnv(raw, env);
}

function describe(e: ErrorObject): string {
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
  if (e.keyword === 'additionalProperties')
    return `${where === '(top level)' ? '' : where + '.'}${String(e.params.additionalProperty)}: unknown key`;
  return `${where}: ${schemaProblem(e)}`;
}

type FileShape = FromSchema<typeof fileSchema>;

interface Phase {
  configPath: string | undefined;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  kinds: Pick<Kinds, 'rules' | 'notifiers'>;
  /** Top-level keys the schema already found wrong: not checked further. */
  broken: Set<string>;
}

/** Each section's checks a schema cannot express add to `problems`; undefined when a section could not be read at all. */
function toConfig(f: FileShape, ph: Phase, problems: string[]): Config | undefined {
  const base = ph.configPath ? path.dirname(ph.configPath) : ph.cwd;
  const ok = (section: string) => !ph.broken.has(section);
  const tools = ok('tools')
    ? f.tools.map((t) => ({ ...(t.service ? { service: t.service } : {}), path: path.resolve(base, t.path) }))
    : [];
  // The files are read here so a bad one is reported with everything else; the services read them again.
  if (ok('tools')) {
    const loaded = loadToolRegistry(tools);
    if (!loaded.ok) problems.push(...loaded.problems);
  }
  // Secrets come from the environment only, never from the file.
  const judge = ok('judge')
    ? { ...toJudgeConfig(f.judge), ...(ph.env.JUDGE_API_KEY ? { apiKey: ph.env.JUDGE_API_KEY } : {}) }
    : undefined;
  if (judge) problems.push(...checkJudgeConfig(judge));
  const alerts = ok('alerts')
    ? toAlertsConfig(f.alerts, { baseDir: base, rules: ph.kinds.rules, notifiers: ph.kinds.notifiers }, problems)
    : undefined;
  const langfuse = ok('langfuse')
    ? toLangfuseConfig(
        f.langfuse,
        { publicKey: ph.env.LANGFUSE_PUBLIC_KEY, secretKey: ph.env.LANGFUSE_SECRET_KEY },
        problems,
      )
    : undefined;
  const auth = ok('auth') ? toAuthConfig(f.auth, { baseDir: base, env: ph.env }, problems) : undefined;
  if (auth && ok('server')) {
    problems.push(
      ...checkExposure(f.server.host, {
        tokens: f.auth.tokens.length,
        allowUnauthenticated: auth.allowUnauthenticated,
      }),
    );
  }
  const tls = ok('server') && f.server.tls ? toTlsConfig(f.server.tls, base) : undefined;
  if (tls) {
    const read = readTls(tls);
    if (!read.ok) problems.push(`server.tls: ${read.problem}`);
  }
  // Node refuses a server whose header deadline is past its request deadline.
  if (ok('server')) {
    const request = durationMs(f.server.request_timeout);
    if (durationMs(f.server.headers_timeout) < 1) problems.push('server.headers_timeout: must be at least 1ms');
    else if (request > 0 && durationMs(f.server.headers_timeout) > request)
      problems.push('server.headers_timeout: must not be longer than server.request_timeout');
  }
  const telemetry = ok('telemetry') ? toTelemetryConfig(f.telemetry, ph.env, problems) : undefined;
  // Renewed every third of it: a lease shorter than a second would be renewed faster than a store answers.
  if (ok('dedupe') && durationMs(f.dedupe.pending_lease) < 1000) {
    problems.push('dedupe.pending_lease: must be at least 1s');
  }
  if (ok('dedupe') && ok('trajectories')) {
    // A trajectory must not complete while a call or execution of it still waits out its grace period.
    const waits = durationMs(f.dedupe.execution_grace) + durationMs(f.dedupe.status_grace);
    if (durationMs(f.trajectories.idle) <= waits) {
      problems.push(
        'trajectories.idle: must be longer than dedupe.execution_grace + dedupe.status_grace ' +
          `(${f.dedupe.execution_grace} + ${f.dedupe.status_grace})`,
      );
    }
  }
  if (ok('check') && f.check.compile_bytes_per_token_per_minute < f.check.compile_bytes_per_batch) {
    // A schema the batch bound admits but the bucket can never hold would never be compiled.
    problems.push('check.compile_bytes_per_token_per_minute: must be at least check.compile_bytes_per_batch');
  }
  if (ph.broken.size > 0 || !judge || !alerts || !langfuse || !auth || !telemetry) return undefined;
  return {
    configPath: ph.configPath,
    server: {
      host: f.server.host,
      port: f.server.port,
      shutdownGraceMs: durationMs(f.server.shutdown_grace),
      ...(tls ? { tls } : {}),
      corsOrigins: [...f.server.cors_origins],
      requestTimeoutMs: durationMs(f.server.request_timeout),
      headersTimeoutMs: durationMs(f.server.headers_timeout),
      connectionTimeoutMs: durationMs(f.server.connection_timeout),
    },
    auth,
    logLevel: f.log_level,
    database: parseDatabaseUrl(f.database_url, ph.cwd),
    ingest: {
      maxBodyBytes: f.ingest.max_body_bytes,
      maxPendingBatches: f.ingest.max_pending_batches,
      retryAfterSeconds: f.ingest.retry_after_seconds,
      maxAttributeDepth: f.ingest.max_attribute_depth,
      maxInflightRequests: f.ingest.max_inflight_requests,
      maxEventLoopDelayMs: durationMs(f.ingest.max_event_loop_delay),
      bodyTimeoutMs: durationMs(f.ingest.body_timeout),
      minBodyBytesPerSecond: f.ingest.min_body_rate,
      maxInflightShare: f.ingest.max_inflight_share,
      maxConcurrentBatches: f.ingest.max_concurrent_batches,
      maxQueueDelayMs: durationMs(f.ingest.max_queue_delay),
    },
    dedupe: {
      maxTraces: f.dedupe.max_traces,
      maxCallsPerTrace: f.dedupe.max_calls_per_trace,
      traceTtlMs: durationMs(f.dedupe.trace_ttl),
      executionGraceMs: durationMs(f.dedupe.execution_grace),
      pendingLeaseMs: durationMs(f.dedupe.pending_lease),
      statusGraceMs: durationMs(f.dedupe.status_grace),
    },
    trajectories: { idleMs: durationMs(f.trajectories.idle), maxTraces: f.trajectories.max_traces },
    problems: { resolveAfterMs: durationMs(f.problems.resolve_after), maxPerService: f.problems.max_per_service },
    metrics: {
      maxLabelValues: f.metrics.max_label_values,
      maxLabelValuesPerToken: f.metrics.max_label_values_per_token,
    },
    store: {
      failuresPerToolPerMinute: f.store.failures_per_tool_per_minute,
      retentionDays: f.store.retention_days,
      sqliteSynchronous: f.store.sqlite_synchronous,
      sqliteBusyTimeoutMs: durationMs(f.store.sqlite_busy_timeout),
      redactArguments: f.store.redact_arguments,
    },
    tools,
    check: {
      maxArgumentBytes: f.check.max_argument_bytes,
      maxArgumentDepth: f.check.max_argument_depth,
      compileBytesPerBatch: f.check.compile_bytes_per_batch,
      compileBytesPerTokenPerMinute: f.check.compile_bytes_per_token_per_minute,
      validationTimePerBatchMs: durationMs(f.check.validation_time_per_batch),
    },
    judge,
    alerts,
    langfuse,
    telemetry,
    changes: toChangesConfig(f.changes),
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
