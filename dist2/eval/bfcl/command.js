/**
 * `toolwatch eval bfcl` (run and score, or score `--pred` files) and `toolwatch eval score --bfcl`:
 * BFCL's data folder as a suite (suite.ts), run through the ordinary runner into the ordinary
 * predictions file, and one report.json with toolwatch's report and a `bfcl` section beside it.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createAdapterRegistry } from '../adapters/index.js';
import { modelsFrom, UsageError, writeAtomic } from '../cli-common.js';
import { readRecords, selectResults } from '../records.js';
import { buildReport } from '../report.js';
import { missingKeys, runSuite } from '../runner.js';
import { SuiteError } from '../suite.js';
import { loadBfcl, parseCategories } from './load.js';
import { bfclMarkdown, bfclSummaryLines } from './markdown.js';
import { scoreBfcl } from './score.js';
import { bfclSuite, reportSuite } from './suite.js';
const str = (v, k) => (typeof v[k] === 'string' ? v[k] : undefined);
function numberOption(v, k, min, max, integer) {
    const s = str(v, k);
    if (s === undefined)
        return undefined;
    const n = Number(s);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
        throw new UsageError(`--${k}: ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
    return n;
}
/** toolwatch's report of the BFCL records, the `bfcl` section added, relevance records not "unknown". */
export function bfclReport(data, results, runs) {
    const suite = bfclSuite(data);
    const report = buildReport(reportSuite(suite, data), results, runs);
    const ids = new Set(data.entries.map((e) => e.id));
    report.unknownCases = report.unknownCases.filter((id) => !ids.has(id));
    report.bfcl = scoreBfcl(data, results, report.models, suite.schemas);
    return report;
}
function finish(report, v, io, cwd) {
    const rep = str(v, 'report');
    const md = str(v, 'markdown');
    if (rep)
        writeAtomic(path.resolve(cwd, rep), `${JSON.stringify(report, null, 2)}\n`);
    if (md)
        writeAtomic(path.resolve(cwd, md), bfclMarkdown(report));
    if (report.unknownCases.length)
        io.err(`note: records of ${report.unknownCases.length} case(s) not in the data were ignored\n`);
    io.out(`${bfclSummaryLines(report).join('\n')}\n`);
    return 0;
}
/** Scores prediction files against a BFCL folder (`eval bfcl --pred`, `eval score --bfcl`). */
export function scoreBfclCommand(data, preds, v, io, cwd) {
    const read = readRecords(preds.map((p) => path.resolve(cwd, p)));
    if (read.problems.length)
        throw new SuiteError(read.problems);
    const runId = str(v, 'run-id');
    const results = selectResults(read, runId);
    if (!results.length)
        throw new UsageError(runId ? `no records of run ${runId}` : 'no result records in the predictions file(s)');
    const other = [...new Set(results.map((r) => r.datasetVersion))].filter((x) => x !== data.datasetVersion);
    if (other.length)
        throw new UsageError(`the predictions are of dataset_version ${other.join(', ')}, the BFCL folder is ${data.datasetVersion}: ` +
            'score them with the data folder they were run on');
    return finish(bfclReport(data, results, read.runs), v, io, cwd);
}
export async function bfclCommand(v, env, io, deps, cwd) {
    const dataDir = str(v, 'data');
    if (!dataDir)
        throw new UsageError('bfcl needs --data (a local copy of BFCL’s data/ folder)');
    const preds = Array.isArray(v.pred) ? v.pred : [];
    const out = str(v, 'out');
    if (preds.length && (out || v.model || v.models))
        throw new UsageError('bfcl: either --pred FILE (score) or --model M --out FILE (run and score), not both');
    if (!preds.length && !out)
        throw new UsageError('bfcl needs --out FILE.jsonl with --model, or --pred FILE to score');
    const concurrency = numberOption(v, 'concurrency', 1, 64, true);
    const temperature = numberOption(v, 'temperature', 0, 2, false);
    const data = loadBfcl(path.resolve(cwd, dataDir), parseCategories(str(v, 'category')));
    if (data.ignored.length)
        io.err(`note: not scored (categories toolwatch does not run): ${data.ignored.join(', ')}\n`);
    if (preds.length)
        return scoreBfclCommand(data, preds, v, io, cwd);
    const suite = bfclSuite(data, {
        ...(concurrency ? { concurrency } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
    });
    const models = modelsFrom(suite, v);
    const adapters = deps.adapters ?? createAdapterRegistry();
    const problems = [
        ...missingKeys(models, env),
        ...models.filter((m) => !adapters.has(m.provider)).map((m) => `${m.label}: no adapter for ${m.provider}`),
    ];
    if (problems.length)
        throw new UsageError(problems.join('\n'));
    const file = path.resolve(cwd, out);
    try {
        mkdirSync(path.dirname(file), { recursive: true });
        appendFileSync(file, '');
    }
    catch (err) {
        throw new UsageError(`--out ${file}: ${err.message}`);
    }
    io.err(`toolwatch eval bfcl: ${data.entries.length} entries of ${data.categories.join(', ')} (${data.datasetVersion}) × ${models.length} model(s)\n`);
    const res = await runSuite({
        suite,
        models,
        variants: ['core'],
        out: file,
        adapters,
        env,
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
        ...(str(v, 'run-id') ? { runId: str(v, 'run-id') } : {}),
    });
    io.out(`run ${res.runId}: ${res.results.length} records appended to ${file}\n`);
    return finish(bfclReport(data, res.results, [res.header]), v, io, cwd);
}
//# sourceMappingURL=command.js.map