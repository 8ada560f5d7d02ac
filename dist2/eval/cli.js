/**
 * toolwatch eval selftest | run | score | compare | bfcl | generate — see USAGE (bfcl/ and generate/ hold the last
 * two; they share this file's model options and errors). Exit codes: 0 done, 1 a gate or a
 * drop was crossed (compare; run/score with --check-gates) or the selftest failed, 2 bad input or
 * usage (nothing is run or written then).
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createAdapterRegistry } from './adapters/index.js';
import { bfclCommand, scoreBfclCommand } from './bfcl/command.js';
import { loadBfcl, parseCategories } from './bfcl/load.js';
import { compareReports, formatComparison, parseReport } from './compare.js';
import { generateCommand } from './generate/command.js';
import { toJUnit } from './junit.js';
import { comparisonMarkdown, toMarkdown } from './markdown.js';
import { checkParamsForRun } from './check-params.js';
import { lengthWarnings, mergeParams, paramsFromFlags } from './params.js';
import { checkCandidates, judgedReport, judgeSummary, JudgeSetupError } from './judge-cli.js';
import { calibrate } from './judge-calibrate.js';
import { createProgress } from './progress.js';
import { replaySuite } from './replay.js';
import { readRecords, selectResults } from './records.js';
import { buildReport } from './report.js';
import { apiKeyFor, missingKeys, runSuite } from './runner.js';
import { runSelftest } from './selftest.js';
import { modelsFrom, UsageError, writeAtomic } from './cli-common.js';
export { modelsFrom, UsageError, writeAtomic } from './cli-common.js';
import { loadSuite, SuiteError, variantsOf } from './suite.js';
export const EVAL_USAGE = `usage: toolwatch eval selftest
       toolwatch eval run --suite DIR --out FILE.jsonl [--model M | --models A,B] [--provider openai|anthropic|openai-responses]
                          [--base-url URL] [--api-key-env NAME] [--repeats N] [--variant core|compatibility|all]
                          [--run-id ID] [--report FILE] [--junit FILE] [--markdown FILE] [--check-gates]
                          [--judge-cache FILE] [--calibration FILE] [--param KEY=VALUE …] [--check-params]
                          [--replay FILE.jsonl]
       toolwatch eval score --suite DIR --pred FILE.jsonl [--pred …] [--run-id ID]
                          [--report FILE] [--junit FILE] [--markdown FILE] [--check-gates]
                          [--judge-cache FILE] [--calibration FILE] [--replay FILE.jsonl]
       toolwatch eval calibrate --suite DIR --pred FILE.jsonl [--pred …] [--run-id ID] [--judge-cache FILE] [--out FILE]
       toolwatch eval score --bfcl DIR [--category …] --pred FILE.jsonl [--pred …] [--run-id ID] [--report FILE]
                          [--markdown FILE]
       toolwatch eval bfcl --data DIR [--category simple_python,…] (--model M | --models A,B) --out FILE.jsonl | --pred FILE.jsonl
                          [--provider openai|anthropic] [--base-url URL] [--api-key-env NAME] [--concurrency N]
                          [--temperature T] [--run-id ID] [--report FILE] [--markdown FILE]
       toolwatch eval generate --suite DIR --model M --out FILE.jsonl [--per-tool N] [--categories LIST] [--append]
                          [--refused FILE] [--provider openai|anthropic] [--base-url URL] [--api-key-env NAME]
       toolwatch eval compare --report FILE [--baseline FILE] [--markdown FILE]
       toolwatch eval export --out FILE.jsonl [--since 7d] [--service S] [--outcome …] [--feedback negative]
                          [--judge reached_goal=false] [--trace-id ID] [--limit N] [--append] [--config FILE]
                          [--problem ID,… | --problems open]`;
const pct = (r) => (r.value === null ? '—' : `${(r.value * 100).toFixed(1)}% (${r.numerator}/${r.denominator})`);
function summary(report) {
    const lines = [];
    for (const m of report.models) {
        const o = m.overall;
        lines.push(`${m.key}: selection ${pct(o.selectionAccuracy)}, strict pass ${pct(o.strictPassRate)}, args ${pct(o.argsAccuracy)}, ` +
            `exact match ${pct(o.exactMatchRate)}, coverage ${pct(o.coverage)}, provider errors ${o.providerErrors.total}`);
        for (const g of m.gates)
            if (g.status === 'failed')
                lines.push(`  gate ${g.gate} ≥ ${g.threshold} failed: ${pct(g)}`);
    }
    lines.push(...judgeSummary(report));
    if (report.suite.skipped.length)
        lines.push(`${report.suite.skipped.length} case(s) waiting for review were not run`);
    lines.push(report.passed ? 'gates: passed' : 'gates: FAILED');
    return lines;
}
function writeOutputs(report, o) {
    if (o.report)
        writeAtomic(o.report, `${JSON.stringify(report, null, 2)}\n`);
    if (o.junit)
        writeAtomic(o.junit, toJUnit(report));
    if (o.markdown)
        writeAtomic(o.markdown, toMarkdown(report));
}
function variantsFrom(suite, v) {
    const all = variantsOf(suite);
    if (v === undefined || v === 'all')
        return all;
    if (v !== 'core' && v !== 'compatibility' && !v.startsWith('tool_choice:'))
        throw new UsageError('--variant: must be core, compatibility, tool_choice:… or all');
    if (v === 'compatibility' && !all.includes(v))
        throw new UsageError(`--variant compatibility: ${suite.dir} has no tools.compatibility.json`);
    if (!all.includes(v))
        throw new UsageError(`--variant ${v}: not a variant of ${suite.dir} (${all.join(', ')})`);
    return [v];
}
const REPORT_OPTIONS = {
    'judge-cache': { type: 'string' },
    calibration: { type: 'string' },
    report: { type: 'string' },
    junit: { type: 'string' },
    markdown: { type: 'string' },
    'check-gates': { type: 'boolean' },
};
/** Each subcommand's options, as parseArgs reads them (the README's command table lists each). */
export const EVAL_OPTIONS = {
    selftest: {},
    run: {
        suite: { type: 'string' },
        out: { type: 'string' },
        model: { type: 'string' },
        models: { type: 'string' },
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key-env': { type: 'string' },
        repeats: { type: 'string' },
        variant: { type: 'string' },
        'run-id': { type: 'string' },
        param: { type: 'string', multiple: true },
        'check-params': { type: 'boolean' },
        replay: { type: 'string' },
        ...REPORT_OPTIONS,
    },
    score: {
        suite: { type: 'string' },
        bfcl: { type: 'string' },
        category: { type: 'string' },
        pred: { type: 'string', multiple: true },
        'run-id': { type: 'string' },
        replay: { type: 'string' },
        ...REPORT_OPTIONS,
    },
    calibrate: {
        suite: { type: 'string' },
        pred: { type: 'string', multiple: true },
        'run-id': { type: 'string' },
        'judge-cache': { type: 'string' },
        out: { type: 'string' },
    },
    compare: { report: { type: 'string' }, baseline: { type: 'string' }, markdown: { type: 'string' } },
    bfcl: {
        data: { type: 'string' },
        category: { type: 'string' },
        out: { type: 'string' },
        pred: { type: 'string', multiple: true },
        model: { type: 'string' },
        models: { type: 'string' },
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key-env': { type: 'string' },
        concurrency: { type: 'string' },
        temperature: { type: 'string' },
        'run-id': { type: 'string' },
        report: { type: 'string' },
        markdown: { type: 'string' },
    },
    generate: {
        suite: { type: 'string' },
        model: { type: 'string' },
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key-env': { type: 'string' },
        out: { type: 'string' },
        append: { type: 'boolean' },
        refused: { type: 'string' },
        'per-tool': { type: 'string' },
        categories: { type: 'string' },
    },
};
async function run(argv, env, io, deps, cwd) {
    const { values: v } = parseArgs({
        args: argv,
        options: EVAL_OPTIONS.run,
        strict: true,
        allowPositionals: false,
    });
    if (!v.suite || !v.out)
        throw new UsageError('run needs --suite and --out');
    const golden = loadSuite(path.resolve(cwd, v.suite));
    const suite = v.replay ? replaySuite(golden, path.resolve(cwd, v.replay)) : golden;
    if (v.replay && v.variant !== undefined)
        throw new UsageError('--variant: not with --replay (replay is its own variant)');
    if (v.repeats !== undefined) {
        const n = Number(v.repeats);
        if (!Number.isInteger(n) || n < 1 || n > 100)
            throw new UsageError('--repeats: an integer from 1 to 100');
        suite.settings.repeats = n;
    }
    const flags = paramsFromFlags(v.param ?? []);
    if (flags.problems.length)
        throw new UsageError(flags.problems.join('\n'));
    const models = modelsFrom(suite, v).map((m) => Object.keys(flags.params).length ? { ...m, params: mergeParams(m.params ?? {}, flags.params) } : m);
    const variants = v.replay ? ['replay'] : variantsFrom(suite, v.variant);
    const adapters = deps.adapters ?? createAdapterRegistry();
    const problems = [
        ...missingKeys(models, env),
        ...models.filter((m) => !adapters.has(m.provider)).map((m) => `${m.label}: no adapter for ${m.provider}`),
    ];
    if (problems.length)
        throw new UsageError(problems.join('\n'));
    // Before any candidate is paid for: a judge that is one of them is refused.
    checkCandidates(suite, models, io.err);
    for (const w of lengthWarnings(models, suite.settings.maxTokens))
        io.err(`${w}\n`);
    if (v['check-params']) {
        const problems = await checkParamsForRun(models, suite.settings, (m) => apiKeyFor(m, env), io.err, deps);
        if (problems.length)
            throw new UsageError(problems.join('\n'));
    }
    const out = path.resolve(cwd, v.out);
    try {
        mkdirSync(path.dirname(out), { recursive: true });
        appendFileSync(out, '');
    }
    catch (err) {
        throw new UsageError(`--out ${out}: ${err.message}`);
    }
    const progress = createProgress({ write: io.err, isTTY: io.isTTY === true });
    const total = models.length * variants.length * suite.cases.length * suite.settings.repeats;
    const shape = `${suite.cases.length} cases × ${suite.settings.repeats} repeats × ${models.length} model(s) × ${variants.length} variant(s)`;
    io.err(`toolwatch eval: ${suite.name} (dataset ${suite.settings.datasetVersion}), ${shape} = ${total} observations\n`);
    const res = await runSuite({
        suite,
        models,
        variants,
        out,
        adapters,
        env,
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
        ...(v['run-id'] ? { runId: v['run-id'] } : {}),
        onResult: (r, done, n) => progress.update(r, done, n),
    });
    progress.finish();
    io.out(`run ${res.runId}: ${res.results.length} records appended to ${out}\n`);
    const report = (await judgedReport(suite, res.results, [res.header], {
        env,
        near: out,
        ...(v['judge-cache'] ? { cacheFile: path.resolve(cwd, v['judge-cache']) } : {}),
        ...(v.calibration ? { calibrationFile: path.resolve(cwd, v.calibration) } : {}),
        warn: io.err,
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
    })) ?? buildReport(suite, res.results, [res.header]);
    if (v.replay)
        report.replay = { file: path.resolve(cwd, v.replay), cases: suite.cases.length };
    writeOutputs(report, { report: rel(cwd, v.report), junit: rel(cwd, v.junit), markdown: rel(cwd, v.markdown) });
    io.out(`${summary(report).join('\n')}\n`);
    return v['check-gates'] && !report.passed ? 1 : 0;
}
const rel = (cwd, f) => (f ? path.resolve(cwd, f) : undefined);
async function score(argv, io, cwd, env = {}, deps = {}) {
    const { values: v } = parseArgs({
        args: argv,
        options: EVAL_OPTIONS.score,
        strict: true,
        allowPositionals: false,
    });
    if (v.bfcl && v.pred?.length) {
        if (v.suite || v.junit || v['check-gates'] || v.replay)
            throw new UsageError('score --bfcl takes neither --suite, --junit, --check-gates nor --replay');
        return scoreBfclCommand(loadBfcl(path.resolve(cwd, v.bfcl), parseCategories(v.category)), v.pred, v, io, cwd);
    }
    if (v.category && !v.bfcl)
        throw new UsageError('score: --category goes with --bfcl');
    if (!v.suite || !v.pred?.length)
        throw new UsageError('score needs --suite (or --bfcl) and --pred');
    const golden = loadSuite(path.resolve(cwd, v.suite));
    const suite = v.replay ? replaySuite(golden, path.resolve(cwd, v.replay)) : golden;
    const read = readRecords(v.pred.map((p) => path.resolve(cwd, p)));
    if (read.problems.length)
        throw new SuiteError(read.problems);
    const results = selectResults(read, v['run-id']);
    if (!results.length)
        throw new UsageError(v['run-id'] ? `no records of run ${v['run-id']}` : 'no result records in the predictions file(s)');
    const versions = [...new Set(results.map((r) => r.datasetVersion))].filter((x) => x !== suite.settings.datasetVersion);
    if (versions.length) {
        const want = suite.settings.datasetVersion;
        throw new UsageError(`the predictions are of dataset_version ${versions.join(', ')}, the suite is ${want}: ` +
            'run it again (or score with the suite they were made from)');
    }
    const report = (await judgedReport(suite, results, read.runs, {
        env,
        near: path.resolve(cwd, v.pred[0]),
        ...(v['judge-cache'] ? { cacheFile: path.resolve(cwd, v['judge-cache']) } : {}),
        ...(v.calibration ? { calibrationFile: path.resolve(cwd, v.calibration) } : {}),
        warn: io.err,
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
    })) ?? buildReport(suite, results, read.runs);
    if (v.replay)
        report.replay = { file: path.resolve(cwd, v.replay), cases: suite.cases.length };
    writeOutputs(report, { report: rel(cwd, v.report), junit: rel(cwd, v.junit), markdown: rel(cwd, v.markdown) });
    if (report.unknownCases.length)
        io.err(`note: records of ${report.unknownCases.length} case(s) not in the suite were ignored: ${report.unknownCases.slice(0, 10).join(', ')}\n`);
    io.out(`${summary(report).join('\n')}\n`);
    return v['check-gates'] && !report.passed ? 1 : 0;
}
function compare(argv, io, cwd) {
    const { values: v } = parseArgs({
        args: argv,
        options: EVAL_OPTIONS.compare,
        strict: true,
        allowPositionals: false,
    });
    if (!v.report)
        throw new UsageError('compare needs --report');
    const load = (f) => {
        const file = path.resolve(cwd, f);
        let text;
        try {
            text = readFileSync(file, 'utf8');
        }
        catch (err) {
            throw new UsageError(`${file}: ${err.message}`);
        }
        try {
            return parseReport(text, file);
        }
        catch (err) {
            throw new UsageError(err.message);
        }
    };
    const report = load(v.report);
    const baseline = v.baseline ? load(v.baseline) : undefined;
    const c = compareReports(report, baseline);
    if (v.markdown)
        writeAtomic(path.resolve(cwd, v.markdown), comparisonMarkdown(c));
    io.out(`${formatComparison(c).join('\n')}\n`);
    return c.passed ? 0 : 1;
}
export async function runEvalCli(argv, env, io, deps = {}) {
    const [sub, ...rest] = argv;
    const cwd = deps.cwd ?? process.cwd();
    if (sub === '--help' || sub === 'help' || sub === '-h') {
        io.out(`${EVAL_USAGE}\n`);
        return 0;
    }
    try {
        if (sub === 'selftest' && rest.length === 0) {
            const r = await runSelftest();
            io.out(`${r.lines.join('\n')}\nselftest: ${r.passed} passed, ${r.failed} failed (scoring logic only; no model was asked)\n`);
            return r.failed ? 1 : 0;
        }
        if (sub === 'run')
            return await run(rest, env, io, deps, cwd);
        if (sub === 'score')
            return await score(rest, io, cwd, env, deps);
        if (sub === 'calibrate')
            return await calibrate(rest, env, io, deps, cwd);
        if (sub === 'compare')
            return compare(rest, io, cwd);
        if (sub === 'generate') {
            const { values } = parseArgs({
                args: rest,
                options: EVAL_OPTIONS.generate,
                strict: true,
                allowPositionals: false,
            });
            return await generateCommand(values, env, io, deps, cwd);
        }
        if (sub === 'bfcl') {
            const { values } = parseArgs({ args: rest, options: EVAL_OPTIONS.bfcl, strict: true, allowPositionals: false });
            return await bfclCommand(values, env, io, deps, cwd);
        }
    }
    catch (err) {
        if (err instanceof SuiteError) {
            io.err(`toolwatch eval: ${err.message}\n`);
            return 2;
        }
        if (err instanceof UsageError ||
            err instanceof JudgeSetupError ||
            err.code?.startsWith('ERR_PARSE_ARGS')) {
            io.err(`toolwatch eval: ${err.message}\n${EVAL_USAGE}\n`);
            return 2;
        }
        throw err;
    }
    io.err(`${EVAL_USAGE}\n`);
    return 2;
}
//# sourceMappingURL=cli.js.map