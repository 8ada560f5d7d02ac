/**
 * A suite is a folder reviewed like code: tools.json (any definition shape the registry reads),
 * optional tools.compatibility.json (advanced keywords, run as a separate variant), system.txt,
 * suite.yaml (settings and gates) and cases.jsonl. Loading checks all of it and reports every
 * problem at once; a suite with any problem is not run.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { readToolFile } from '../check/registry.js';
import { SchemaCache } from '../check/schema-cache.js';
import { parseDuration } from '../util/duration.js';
import { PROVIDERS, STREAMING_PROVIDERS } from './adapters/index.js';
import { parseCases } from './cases.js';
import { suiteSchema } from './suite-schema.js';
import { paramsProblems } from './params.js';
import { similarityProblems, toSimilaritySettings } from './similarity-settings.js';
import { stateProblems } from './state-expected.js';
import { loadStatefulTools } from './stateful.js';
import { variantOf } from './tool-choice.js';
import { DEFAULT_GATES } from './gates.js';
import { toJudgeSettings } from './judge-settings.js';
export { PROVIDERS };
export class SuiteError extends Error {
    problems;
    constructor(problems) {
        super(`invalid suite:\n  - ${problems.join('\n  - ')}`);
        this.problems = problems;
        this.name = 'SuiteError';
    }
}
export { suiteSchema };
export function modelLabel(provider, model) {
    return `${provider}/${model}`;
}
let validate;
function readSettings(file, problems) {
    let raw;
    try {
        raw = parseYaml(readFileSync(file, 'utf8'));
    }
    catch (err) {
        problems.push(`${file}: ${err.message}`);
        return undefined;
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
        problems.push(`${file}: must be a mapping with at least dataset_version`);
        return undefined;
    }
    // Keys belong in the environment only; say so rather than "unknown key".
    const models = raw.models;
    const judgeRaw = raw.judge;
    if (judgeRaw && typeof judgeRaw === 'object' && 'api_key' in judgeRaw) {
        problems.push(`${file}: judge.api_key: keys are never read from files; name an environment variable with api_key_env`);
        return undefined;
    }
    if (Array.isArray(models) && models.some((m) => m && typeof m === 'object' && 'api_key' in m)) {
        problems.push(`${file}: models[].api_key: keys are never read from files; name an environment variable with api_key_env`);
        return undefined;
    }
    validate ??= new Ajv({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true }).compile(suiteSchema);
    if (!validate(raw)) {
        problems.push(...(validate.errors ?? []).map((e) => `${file}: ${describe(e)}`));
        return undefined;
    }
    const f = raw;
    try {
        new RegExp(f.clarification_pattern, 'u');
    }
    catch (err) {
        problems.push(`${file}: clarification_pattern: not a valid regular expression (${err.message})`);
    }
    for (const p of f.redact.patterns) {
        try {
            new RegExp(p, 'g');
        }
        catch (err) {
            problems.push(`${file}: redact.patterns: ${JSON.stringify(p)} is not a valid regular expression (${err.message})`);
        }
    }
    const labels = new Set();
    const specs = f.models.map((m) => {
        const label = m.label ?? modelLabel(m.provider, m.model);
        if (labels.has(label))
            problems.push(`${file}: models: ${label} is listed twice (give each a distinct label)`);
        labels.add(label);
        return {
            provider: m.provider,
            model: m.model,
            label,
            ...(m.base_url ? { baseUrl: m.base_url } : {}),
            ...(m.api_key_env ? { apiKeyEnv: m.api_key_env } : {}),
            ...(m.params ? { params: m.params } : {}),
            ...(m.stream ? { stream: true } : {}),
        };
    });
    for (const [i, m] of f.models.entries())
        if (m.params)
            problems.push(...paramsProblems(m.params, `${file}: models[${i}].params`));
    for (const [i, m] of f.models.entries())
        if (m.stream && !STREAMING_PROVIDERS.includes(m.provider))
            problems.push(`${file}: models[${i}].stream: streaming is implemented for ${STREAMING_PROVIDERS.join(', ')} only, not ${m.provider}`);
    const gates = { ...DEFAULT_GATES };
    for (const [k, v] of Object.entries(f.gates))
        gates[k] = v ?? null;
    return {
        ...(f.name ? { name: f.name } : {}),
        datasetVersion: String(f.dataset_version),
        models: specs,
        repeats: f.repeats,
        ...(f.temperature !== undefined ? { temperature: f.temperature } : {}),
        ...(f.max_tokens !== undefined ? { maxTokens: f.max_tokens } : {}),
        timeoutMs: parseDuration(f.timeout),
        concurrency: f.concurrency,
        maxTurns: f.max_turns,
        maxRetries: f.max_retries,
        maxRetryWaitMs: parseDuration(f.max_retry_wait),
        clarificationPattern: f.clarification_pattern,
        gates,
        redact: { fields: f.redact.fields, patterns: f.redact.patterns },
        ...(f.judge ? { judge: toJudgeSettings(f.judge, (d) => parseDuration(d)) } : {}),
        ...(f.similarity ? { similarity: toSimilaritySettings(f.similarity, (d) => parseDuration(d)) } : {}),
        toolChoices: f.tool_choice ?? [],
    };
}
function describe(e) {
    const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
    if (e.keyword === 'additionalProperties')
        return `${where === '(top level)' ? '' : where + '.'}${String(e.params.additionalProperty)}: unknown key`;
    if (e.keyword === 'enum')
        return `${where}: must be one of ${e.params.allowedValues.join(', ')}`;
    if (e.keyword === 'pattern' && e.params.pattern.includes('ms|s|m|h|d'))
        return `${where}: must be a duration such as 30s, 5m`;
    return `${where}: ${e.message ?? 'is invalid'}`;
}
function readTools(file, problems) {
    const r = readToolFile(file);
    if (!r.ok) {
        problems.push(...r.problems);
        return undefined;
    }
    const seen = new Set();
    for (const d of r.defs) {
        if (seen.has(d.name))
            problems.push(`${file}: tool ${JSON.stringify(d.name)} is defined twice`);
        seen.add(d.name);
    }
    return r.defs;
}
/** Loads and checks a suite folder; throws SuiteError listing every problem. */
export function loadSuite(dir) {
    const root = path.resolve(dir);
    const problems = [];
    const at = (f) => path.join(root, f);
    if (!existsSync(root))
        throw new SuiteError([`${root}: no such suite folder`]);
    if (!existsSync(at('suite.yaml')))
        problems.push(`${at('suite.yaml')}: missing (needs at least dataset_version)`);
    if (!existsSync(at('cases.jsonl')))
        problems.push(`${at('cases.jsonl')}: missing`);
    if (problems.length)
        throw new SuiteError(problems);
    const settings = readSettings(at('suite.yaml'), problems);
    const tools = existsSync(at('tools.json')) ? readTools(at('tools.json'), problems) : [];
    const compat = existsSync(at('tools.compatibility.json'))
        ? readTools(at('tools.compatibility.json'), problems)
        : undefined;
    if (tools && compat) {
        const a = tools
            .map((t) => t.name)
            .sort()
            .join(',');
        const b = compat
            .map((t) => t.name)
            .sort()
            .join(',');
        if (a !== b)
            problems.push(`${at('tools.compatibility.json')}: must define the same tools as tools.json (${a} vs ${b})`);
    }
    for (const c of settings?.toolChoices ?? []) {
        if (typeof c === 'object' && tools && !tools.some((t) => t.name === c.name))
            problems.push(`${at('suite.yaml')}: tool_choice: ${JSON.stringify(c.name)} is not in tools.json`);
    }
    const system = existsSync(at('system.txt')) ? readFileSync(at('system.txt'), 'utf8').trim() : '';
    if (!settings || !tools)
        throw new SuiteError(problems);
    const schemas = new SchemaCache();
    const parsed = parseCases(readFileSync(at('cases.jsonl'), 'utf8'), at('cases.jsonl'), {
        tools,
        defaultMaxTurns: settings.maxTurns,
        schemas,
    });
    problems.push(...parsed.problems);
    if (tools.length === 0) {
        const bare = parsed.cases.find((c) => !c.tools);
        if (bare)
            problems.push(`${at('tools.json')}: missing, and case ${JSON.stringify(bare.id)} (line ${bare.line}) brings no tools of its own`);
    }
    if (!problems.length && parsed.cases.length === 0) {
        problems.push(`${at('cases.jsonl')}: no cases to run${parsed.skipped.length ? ` (${parsed.skipped.length} waiting for review)` : ''}`);
    }
    let stateful;
    if (existsSync(at('tools.mjs'))) {
        try {
            stateful = loadStatefulTools(at('tools.mjs'));
        }
        catch (err) {
            problems.push(err.message);
        }
    }
    problems.push(...stateProblems(parsed.cases, stateful, at('cases.jsonl')));
    problems.push(...similarityProblems(parsed.cases, settings.similarity, at('cases.jsonl')));
    if (problems.length)
        throw new SuiteError(problems);
    return {
        ...(stateful ? { stateful } : {}),
        dir: root,
        name: settings.name ?? path.basename(root),
        system,
        tools,
        ...(compat ? { compatibilityTools: compat } : {}),
        cases: parsed.cases,
        skipped: parsed.skipped,
        settings,
        schemas,
    };
}
/** The tools a case is offered in a variant. */
export function toolsFor(suite, c, variant) {
    if (c.tools)
        return c.tools;
    return variant === 'compatibility' && suite.compatibilityTools ? suite.compatibilityTools : suite.tools;
}
export function variantsOf(suite) {
    const base = suite.compatibilityTools ? ['core', 'compatibility'] : ['core'];
    return [...base, ...suite.settings.toolChoices.map(variantOf)];
}
//# sourceMappingURL=suite.js.map