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
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { alertsSection } from './alerts/config.js';
import { authSection, checkExposure } from './auth/config.js';
import { changesSection } from './changes/config.js';
import { checkSection, toolsSection } from './check/config.js';
import { trajectoriesSection } from './efficiency/config.js';
import { judgeSection } from './judge/config.js';
import { builtinKinds } from './kinds.js';
import { logLevelSection } from './logger.js';
import { metricsSection } from './metrics/config.js';
import { dedupeSection } from './pipeline/config.js';
import { problemsSection } from './problems/config.js';
import { serverSection } from './server/config.js';
import { langfuseSection } from './sources/langfuse/config.js';
import { ingestSection } from './sources/otlp/config.js';
import { databaseSection, storeSection } from './store/config.js';
import { telemetrySection } from './telemetry/config.js';
import { deepFreeze } from './util/deep-freeze.js';
import { schemaProblem } from './util/schema-problem.js';
export { parseDatabaseUrl } from './store/config.js';
export class ConfigError extends Error {
    problems;
    constructor(problems) {
        super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
        this.problems = problems;
        this.name = 'ConfigError';
    }
}
/**
 * Every section, by the Config field it builds, in the order they are built (and their variables
 * listed). A new section is one file in its folder and one line here.
 */
// biome-ignore lint/suspicious/noExplicitAny: each section is typed against its own file shape in its own folder
const SECTIONS = {
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
const sectionList = Object.entries(SECTIONS);
/** Every section, in build order (the architecture test holds them to one key each, in their own folders). */
export const CONFIG_SECTIONS = sectionList.map(([field, section]) => ({ field, section }));
/** The file's schema: every section's, under its key. Defaults live there, so the YAML in config/ only documents them. */
export const fileSchema = {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(sectionList.map(([, s]) => [s.key, s.schema])),
};
export const DEFAULT_CONFIG_PATH = 'config/toolwatch.yaml';
/** The environment variables the loader reads (and nothing else does; README, Environment variables). */
export const CONFIG_ENV = [
    'TOOLWATCH_CONFIG',
    ...sectionList.flatMap(([, s]) => s.env?.names ?? []),
];
/** Reads, validates and freezes the configuration; throws ConfigError listing every problem. */
export function loadConfig(opts = {}) {
    return loadConfigDetailed(opts).config;
}
/** loadConfig, and the effective file behind it (for `toolwatch config check`). */
export function loadConfigDetailed(opts = {}) {
    const env = opts.env ?? {};
    const cwd = opts.cwd ?? process.cwd();
    const problems = [];
    const configPath = pickConfigPath(opts.argv ?? [], env, cwd);
    let raw = {};
    if (configPath) {
        try {
            const parsed = parseYaml(readFileSync(configPath, 'utf8'));
            if (parsed == null)
                raw = {};
            else if (typeof parsed === 'object' && !Array.isArray(parsed))
                raw = parsed;
            else
                problems.push(`${configPath}: the top level must be a mapping`);
        }
        catch (err) {
            problems.push(`${configPath}: ${err.message}`);
        }
    }
    raw = mergeDeep(raw, opts.overrides ?? {});
    // Env variables override the file; they are checked by the same schema, named by their variable.
    for (const [, section] of sectionList) {
        if (!section.env?.apply)
            continue;
        const value = section.env.apply(raw[section.key], env, problems);
        if (value !== undefined)
            raw[section.key] = value;
    }
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
    const validate = ajv.compile(fileSchema);
    const errors = validate(raw) ? [] : (validate.errors ?? []);
    problems.push(...errors.map(describe));
    // A section whose shape is wrong cannot be checked further; every other section still is.
    const broken = new Set(errors.map((e) => e.instancePath.split('/')[1] ?? ''));
    const file = structuredClone(raw);
    const ctx = {
        configPath,
        baseDir: configPath ? path.dirname(configPath) : cwd,
        cwd,
        env,
        kinds: opts.kinds ?? builtinKinds(),
    };
    const built = {};
    for (const [field, section] of sectionList) {
        if (!broken.has(section.key))
            built[field] = section.build(raw[section.key], ctx, problems);
    }
    problems.push(...crossSectionProblems(raw, built));
    if (problems.length || broken.size > 0)
        throw new ConfigError(problems);
    return { config: deepFreeze({ configPath, ...built }), file };
}
function pickConfigPath(argv, env, cwd) {
    const i = argv.indexOf('--config');
    const fromArg = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--config='))?.slice('--config='.length);
    const explicit = fromArg ?? env.TOOLWATCH_CONFIG;
    if (explicit)
        return path.resolve(cwd, explicit);
    const fallback = path.resolve(cwd, DEFAULT_CONFIG_PATH);
    try {
        readFileSync(fallback);
        return fallback;
    }
    catch {
        return undefined;
    }
}
function describe(e) {
    const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
    if (e.keyword === 'additionalProperties')
        return `${where === '(top level)' ? '' : where + '.'}${String(e.params.additionalProperty)}: unknown key`;
    return `${where}: ${schemaProblem(e)}`;
}
/** The checks that read two sections, each run only when both could be built. */
function crossSectionProblems(raw, c) {
    const f = raw;
    const problems = [];
    if (c.auth && c.server) {
        problems.push(...checkExposure(c.server.host, {
            tokens: f.auth.tokens.length,
            allowUnauthenticated: c.auth.allowUnauthenticated,
        }));
    }
    if (c.dedupe && c.trajectories) {
        // A trajectory must not complete while a call or execution of it still waits out its grace period.
        if (c.trajectories.idleMs <= c.dedupe.executionGraceMs + c.dedupe.statusGraceMs) {
            problems.push('trajectories.idle: must be longer than dedupe.execution_grace + dedupe.status_grace ' +
                `(${f.dedupe.execution_grace} + ${f.dedupe.status_grace})`);
        }
    }
    return problems;
}
function mergeDeep(a, b) {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) {
        if (k === '__proto__')
            continue;
        const prev = out[k];
        out[k] =
            v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
                ? mergeDeep(prev, v)
                : v;
    }
    return out;
}
//# sourceMappingURL=config.js.map