/**
 * One typed config: the YAML file, then environment overrides, validated once — the schema of every
 * section and every section's own checks (cron, regular expressions, files, rule-kind keys, notifier
 * URLs) — with every problem reported at once, then frozen. Nothing else in toolwatch reads
 * process.env, and nothing after this phase reports a configuration problem.
 *
 * Each section lives in the folder whose settings it holds (a ConfigSection: src/util/config-section.ts):
 * its key, schema, environment variables and build. This file keeps the loader, the one list of
 * sections, the checks that span two sections, and the freeze.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { alertsSection, type AlertsConfig } from './alerts/config.js';
import { authSection, checkExposure, type AuthConfig, type AuthFileShape } from './auth/config.js';
import { changesSection, type ChangesConfig } from './changes/config.js';
import type { CheckLimits } from './check/budget.js';
import { checkSection, toolsSection } from './check/config.js';
import type { ToolSource } from './check/registry.js';
import { trajectoriesSection, type TrajectoriesConfig } from './efficiency/config.js';
import { judgeSection, type JudgeConfig } from './judge/config.js';
import { builtinKinds, type Kinds } from './kinds.js';
import { logLevelSection } from './logger.js';
import { metricsSection, type MetricsConfig } from './metrics/config.js';
import { dedupeSection, type DedupeConfig, type DedupeFileShape } from './pipeline/config.js';
import { problemsSection, type ProblemsConfig } from './problems/config.js';
import { serverSection, type ServerConfig } from './server/config.js';
import { langfuseSection, type LangfuseConfig } from './sources/langfuse/config.js';
import { ingestSection, type IngestConfig } from './sources/otlp/config.js';
import { databaseSection, storeSection, type StoreSettings } from './store/config.js';
import type { DatabaseConfig } from './store/open.js';
import { telemetrySection, type TelemetryConfig } from './telemetry/config.js';
import type { ConfigSection, SectionContext } from './util/config-section.js';
import { deepFreeze } from './util/deep-freeze.js';
import { schemaProblem } from './util/schema-problem.js';

export { parseDatabaseUrl } from './store/config.js';

export interface Config {
  configPath: string | undefined;
  server: ServerConfig;
  /** API tokens and the loopback-only default (src/auth/config.ts); token values never appear here. */
  auth: AuthConfig;
  logLevel: string;
  /** A SQLite file path (sqlite:/file: prefixes removed) or a postgres:// URL. */
  database: DatabaseConfig;
  ingest: IngestConfig;
  dedupe: DedupeConfig;
  /** Every trace followed to its end for the efficiency statistics (src/efficiency/). */
  trajectories: TrajectoriesConfig;
  /** Failed calls grouped by signature (src/problems/). */
  problems: ProblemsConfig;
  metrics: MetricsConfig;
  store: StoreSettings;
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

/** What the loader hands every section's build: the rule and notifier kinds are the alerts section's. */
type LoaderContext = SectionContext & { kinds: Pick<Kinds, 'rules' | 'notifiers'> };

type Built = Omit<Config, 'configPath'>;

/**
 * Every section, by the Config field it builds, in the order they are built (and their variables
 * listed). A new section is one file in its folder and one line here.
 */
// biome-ignore lint/suspicious/noExplicitAny: each section is typed against its own file shape in its own folder
const SECTIONS: { [F in keyof Built]: ConfigSection<any, Built[F], LoaderContext> } = {
  server: serverSection,
  auth: authSection,
  logLevel: logLevelSection,
  database: databaseSection,
  ingest: ingestSection,
  dedupe: dedupeSection,
  trajectories: trajectoriesSection,
  problems: problemsSection,
  metrics: metricsSection,
  store: storeSection,
  tools: toolsSection,
  check: checkSection,
  judge: judgeSection,
  alerts: alertsSection,
  langfuse: langfuseSection,
  telemetry: telemetrySection,
  changes: changesSection,
};

const sectionList = Object.entries(SECTIONS) as [keyof Built, ConfigSection<unknown, unknown, LoaderContext>][];

/** Every section, in build order (the architecture test holds them to one key each, in their own folders). */
export const CONFIG_SECTIONS: readonly { field: keyof Built; section: ConfigSection<unknown, unknown, never> }[] =
  sectionList.map(([field, section]) => ({ field, section }));

/** The file's schema: every section's, under its key. Defaults live there, so the YAML in config/ only documents them. */
export const fileSchema = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(sectionList.map(([, s]) => [s.key, s.schema])),
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
export const CONFIG_ENV: readonly string[] = [
  'TOOLWATCH_CONFIG',
  ...sectionList.flatMap(([, s]) => s.env?.names ?? []),
];

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
  // Env variables override the file; they are checked by the same schema, named by their variable.
  for (const [, section] of sectionList) {
    if (!section.env?.apply) continue;
    const value = section.env.apply(raw[section.key], env, problems);
    if (value !== undefined) raw[section.key] = value;
  }

  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
  const validate = ajv.compile(fileSchema);
  const errors = validate(raw) ? [] : (validate.errors ?? []);
  problems.push(...errors.map(describe));
  // A section whose shape is wrong cannot be checked further; every other section still is.
  const broken = new Set(errors.map((e) => e.instancePath.split('/')[1] ?? ''));
  const file = structuredClone(raw);
  const ctx: LoaderContext = {
    configPath,
    baseDir: configPath ? path.dirname(configPath) : cwd,
    cwd,
    env,
    kinds: opts.kinds ?? builtinKinds(),
  };
  const built: Partial<Built> = {};
  for (const [field, section] of sectionList) {
    if (!broken.has(section.key))
      (built as Record<string, unknown>)[field] = section.build(raw[section.key], ctx, problems);
  }
  problems.push(...crossSectionProblems(raw, built));
  if (problems.length || broken.size > 0) throw new ConfigError(problems);
  return { config: deepFreeze({ configPath, ...(built as Built) }), file };
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

function describe(e: ErrorObject): string {
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
  if (e.keyword === 'additionalProperties')
    return `${where === '(top level)' ? '' : where + '.'}${String(e.params.additionalProperty)}: unknown key`;
  return `${where}: ${schemaProblem(e)}`;
}

/** The checks that read two sections, each run only when both could be built. */
function crossSectionProblems(raw: Record<string, unknown>, c: Partial<Built>): string[] {
  const f = raw as { auth: AuthFileShape; dedupe: DedupeFileShape };
  const problems: string[] = [];
  if (c.auth && c.server) {
    problems.push(
      ...checkExposure(c.server.host, {
        tokens: f.auth.tokens.length,
        allowUnauthenticated: c.auth.allowUnauthenticated,
      }),
    );
  }
  if (c.dedupe && c.trajectories) {
    // A trajectory must not complete while a call or execution of it still waits out its grace period.
    if (c.trajectories.idleMs <= c.dedupe.executionGraceMs + c.dedupe.statusGraceMs) {
      problems.push(
        'trajectories.idle: must be longer than dedupe.execution_grace + dedupe.status_grace ' +
          `(${f.dedupe.execution_grace} + ${f.dedupe.status_grace})`,
      );
    }
  }
  return problems;
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
