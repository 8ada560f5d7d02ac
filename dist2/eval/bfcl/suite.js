/**
 * BFCL entries as a toolwatch suite, so `eval run`'s runner, records and report are reused: each
 * entry one single-turn case offered its tools as BFCL sends them, tagged `bfcl` and its category.
 * The case's expectation is toolwatch's own reading of BFCL's ground truth (BFCL's verdict comes
 * from ast-checker.ts, not from it): several acceptable values → any_of, `""` among them → optional,
 * only `""` → must be left out, strings compared soft; irrelevance → no call. live_relevance has no
 * ground truth ("any call"), so it runs but has no toolwatch expectation (reportCases leaves it out).
 */
import { SchemaCache } from '../../check/schema-cache.js';
import { GATE_NAMES } from '../gates.js';
import { Matcher } from '../matchers.js';
import { sentName } from './ast-checker.js';
import { isRelevanceCategory } from './load.js';
import { isDict, toJs } from './pyvalue.js';
/** BFCL's generation default (bfcl_eval `--temperature`). */
export const BFCL_TEMPERATURE = 0.001;
function argsSpec(params) {
    const checks = [];
    const literal = {};
    for (const [key, raw] of params) {
        const all = Array.isArray(raw) ? raw : [raw];
        const optional = all.some((x) => x === '');
        const values = all.filter((x) => x !== '').map((x) => toJs(x));
        if (values.length === 0)
            continue; // only "": the argument must be left out (extra fails it)
        const written = { any_of: values, ...(optional ? { optional: true } : {}) };
        const value = values.length === 1 && !optional
            ? values[0]
            : new Matcher({ kind: 'any_of', alternatives: values }, optional, written);
        checks.push({ key, mode: 'soft', value });
        literal[key] = value;
    }
    return { checks, optional: [], constraints: {}, extra: 'fail', literal };
}
export function expectationOf(e) {
    if (e.category.includes('irrelevance'))
        return { kind: 'text' };
    if (isRelevanceCategory(e.category) || !e.answers)
        return undefined;
    const calls = e.answers.map((a) => {
        const [name, params] = [...a][0];
        return { name: sentName(name), args: argsSpec(isDict(params) ? params : new Map()) };
    });
    return { kind: 'tool', calls };
}
function toCase(e) {
    return {
        id: e.id,
        file: e.file,
        line: e.line,
        format: 'canonical',
        messages: e.messages,
        tools: e.tools,
        // The runner needs an expectation; relevance's placeholder is never scored by toolwatch's report.
        expected: expectationOf(e) ?? { kind: 'tool', calls: [] },
        tags: ['bfcl', e.category],
        toolResults: {},
        maxTurns: 1,
    };
}
/** No gates by default: BFCL is a benchmark to read, not a release gate (suite.yaml is not read). */
const NO_GATES = { ...Object.fromEntries(GATE_NAMES.map((g) => [g, null])), max_drop_pp: null };
export function bfclSuite(data, o = {}) {
    return {
        dir: data.dir,
        name: 'bfcl',
        system: '',
        tools: [],
        cases: data.entries.map(toCase),
        skipped: [],
        settings: {
            name: 'bfcl',
            datasetVersion: data.datasetVersion,
            models: [],
            repeats: 1,
            temperature: o.temperature ?? BFCL_TEMPERATURE,
            timeoutMs: o.timeoutMs ?? 60_000,
            concurrency: o.concurrency ?? 1,
            maxTurns: 1,
            maxRetries: 3,
            maxRetryWaitMs: 60_000,
            clarificationPattern: '[?？]',
            gates: NO_GATES,
            // BFCL's runs leave tool_choice to the model (auto): no forced-choice variants.
            toolChoices: [],
            redact: { fields: [], patterns: [] },
        },
        schemas: new SchemaCache(),
    };
}
/** The suite toolwatch's report is built on: every case with an expectation of its own. */
export function reportSuite(suite, data) {
    const scored = new Set(data.entries.filter((e) => !isRelevanceCategory(e.category) || e.category.includes('irrelevance')).map((e) => e.id));
    return { ...suite, cases: suite.cases.filter((c) => scored.has(c.id)) };
}
//# sourceMappingURL=suite.js.map