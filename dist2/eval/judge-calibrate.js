/**
 * `toolwatch eval calibrate --suite DIR --pred FILE`: the judge against the human labels of the
 * suite (labels.jsonl): the labelled observations are judged (from the cache when already asked),
 * and Cohen's κ is printed per field with n, against judge.min_kappa and judge.min_labels.
 * `--out FILE` keeps the result for `run`/`score --calibration FILE`. Exit 0 calibrated, 1 not.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { judgedReport, JudgeSetupError, LABELS_FILE, loadLabels } from './judge-cli.js';
import { readRecords, selectResults } from './records.js';
import { loadSuite, SuiteError } from './suite.js';
export async function calibrate(argv, env, io, deps, cwd) {
    const { values: v } = parseArgs({
        args: argv,
        options: {
            suite: { type: 'string' },
            pred: { type: 'string', multiple: true },
            'run-id': { type: 'string' },
            'judge-cache': { type: 'string' },
            out: { type: 'string' },
        },
        strict: true,
        allowPositionals: false,
    });
    if (!v.suite || !v.pred?.length)
        throw new JudgeSetupError('calibrate needs --suite and --pred');
    const suite = loadSuite(path.resolve(cwd, v.suite));
    const s = suite.settings.judge;
    if (!s)
        throw new JudgeSetupError(`${suite.dir}/suite.yaml: no judge to calibrate (add judge: {model, …})`);
    const labels = loadLabels(suite);
    if (!labels.length)
        throw new JudgeSetupError(`${path.join(suite.dir, LABELS_FILE)}: missing or empty`);
    const read = readRecords(v.pred.map((p) => path.resolve(cwd, p)));
    if (read.problems.length)
        throw new SuiteError(read.problems);
    const results = selectResults(read, v['run-id']);
    if (!results.length)
        throw new JudgeSetupError('no result records in the predictions file(s)');
    const report = await judgedReport(suite, results, read.runs, {
        env,
        near: path.resolve(cwd, v.pred[0]),
        ...(v['judge-cache'] ? { cacheFile: path.resolve(cwd, v['judge-cache']) } : {}),
        warn: io.err,
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
    });
    if (!report?.judge)
        throw new JudgeSetupError('no case of the suite asks a judge');
    const c = report.judge.calibration;
    const lines = [`judge ${c.judgeModel} (prompt ${c.promptVersion}) against ${c.labels} label(s):`];
    for (const f of c.fields) {
        const k = f.kappa === null ? '—' : f.kappa.toFixed(3);
        lines.push(`  ${f.field}: κ ${k}, n ${f.n}${f.agreement === null ? '' : `, agreement ${(f.agreement * 100).toFixed(1)}%`} — ${f.calibrated ? 'calibrated' : `uncalibrated (${f.reason})`}`);
    }
    lines.push(c.calibrated
        ? `calibrated (κ ≥ ${c.minKappa}, n ≥ ${c.minLabels} on every field)`
        : `UNCALIBRATED: judge-based rates are reported, never gated (needs κ ≥ ${c.minKappa} and n ≥ ${c.minLabels})`);
    const u = report.judge.usage;
    lines.push(`judge tokens ${u.totalTokens} (${u.asked} asked, ${u.cached} cached), cost ${u.cost}`);
    if (v.out) {
        const file = path.resolve(cwd, v.out);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, `${JSON.stringify(c, null, 2)}\n`);
    }
    io.out(`${lines.join('\n')}\n`);
    return c.calibrated ? 0 : 1;
}
//# sourceMappingURL=judge-calibrate.js.map