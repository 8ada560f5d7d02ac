#!/usr/bin/env node
/**
 * toolwatch serve                       — the service (same as dist/main.js)
 * toolwatch judge --once                — one judge run now, then exit (prints the run summary)
 * toolwatch labels import FILE.jsonl    — human labels for calibration, one JSON object a line
 * toolwatch eval selftest|run|score|compare — golden-set evaluation (src/eval/cli.ts)
 * toolwatch eval export --out FILE.jsonl [filters] — stored failures as draft cases (src/replay/cli.ts)
 * toolwatch config check                — the effective configuration (secrets redacted), or every problem
 * toolwatch demo [options]              — the service on a temporary SQLite file, fed by demo agents (src/demo/)
 * Every command accepts --config FILE (or TOOLWATCH_CONFIG). Exit codes: 0 ok, 1 failed, 2 usage/config.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { ConfigError, loadConfig, loadConfigDetailed } from './config.js';
import { effectiveConfigText } from './config-check.js';
import { createLogger } from './logger.js';
import { main } from './main.js';
import { LabelCap } from './metrics/label-cap.js';
import { createMetrics } from './metrics/registry.js';
import { openStore } from './store/open.js';
import { createJudge } from './judge/service.js';
import { storeRedactor } from './redact/stored.js';
import { checkLabel } from './judge/verdict.js';
import { runEvalCli } from './eval/cli.js';
import { startTelemetry } from './telemetry/sdk.js';
import { FeedbackStore } from './feedback/store.js';
import { EXPORT_USAGE, parseExportArgs, runExport } from './replay/cli.js';
import { DEMO_USAGE } from './demo/usage.js';
/** The commands (README, Judge "CLI" and Offline evaluation); test/docs checks the README names each. */
export const USAGE = `usage: toolwatch serve [--config FILE]
       toolwatch judge --once [--config FILE]
       toolwatch labels import FILE.jsonl [--config FILE]
       toolwatch eval selftest | run | score | compare   (toolwatch eval --help)
       toolwatch eval export --out FILE.jsonl [filters] [--config FILE]
       toolwatch config check [--config FILE]
       ${DEMO_USAGE}`;
const stdio = {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
    isTTY: process.stderr.isTTY === true,
};
/** Runs one command; resolves to the exit code (serve resolves once listening, with 0). */
export async function runCli(argv, env, io = stdio) {
    const [cmd, ...rest] = argv;
    if (cmd === 'serve') {
        await main(rest, env);
        return typeof process.exitCode === 'number' ? process.exitCode : 0;
    }
    // The export reads the store: filters are checked first, so a bad one opens nothing and writes nothing.
    if (cmd === 'eval' && rest[0] === 'export') {
        const args = parseExportArgs(rest.slice(1), Date.now(), process.cwd());
        if (!args.ok) {
            io.err(`toolwatch eval export: ${args.problems.join('\n  ')}\n${EXPORT_USAGE}\n`);
            return 2;
        }
        return withStore(rest.slice(1), env, io, (config, store) => runExport(args.value, { sql: store.sql, redact: config.judge.redact }, io));
    }
    // Offline evaluation needs no config file or store: a suite folder and a model endpoint.
    if (cmd === 'eval')
        return runEvalCli(rest, env, io);
    if (cmd === 'judge' && rest.includes('--once'))
        return withStore(rest, env, io, (config, store) => judgeOnce(config, store, io));
    if (cmd === 'config' && rest[0] === 'check')
        return configCheck(rest.slice(1), env, io);
    // Loaded only here: the demo's agents bring the OpenTelemetry SDK, which `serve` never needs.
    if (cmd === 'demo')
        return (await import('./demo/cli.js')).runDemoCli(rest, io);
    if (cmd === 'labels' && rest[0] === 'import' && rest[1] && !rest[1].startsWith('--')) {
        const file = path.resolve(rest[1]);
        return withStore(rest.slice(2), env, io, (config, store) => importLabels(file, config, store, io));
    }
    io.err(`${USAGE}\n`);
    return 2;
}
/** Loads the configuration as `serve` would — nothing opened, nothing written — and prints it or every problem. */
function configCheck(argv, env, io) {
    const unknown = argv.filter((a, i) => !(a === '--config' || a.startsWith('--config=') || argv[i - 1] === '--config'));
    if (unknown.length || (argv.includes('--config') && !argv[argv.indexOf('--config') + 1])) {
        io.err(`${USAGE}\n`);
        return 2;
    }
    try {
        io.out(effectiveConfigText(loadConfigDetailed({ argv, env }), env));
        return 0;
    }
    catch (err) {
        if (err instanceof ConfigError) {
            io.err(`toolwatch: ${err.message}\n`);
            return 2;
        }
        throw err;
    }
}
async function withStore(argv, env, io, fn) {
    let config;
    try {
        config = loadConfig({ argv, env });
    }
    catch (err) {
        if (err instanceof ConfigError) {
            io.err(`toolwatch: ${err.message}\n`);
            return 2;
        }
        throw err;
    }
    const store = await openStore(config, createLogger(config.logLevel));
    try {
        return await fn(config, store);
    }
    finally {
        await store.close();
    }
}
async function judgeOnce(config, store, io) {
    const log = createLogger(config.logLevel);
    const metrics = createMetrics();
    const telemetry = await startTelemetry(config.telemetry, { log });
    try {
        const tracer = telemetry.tracer ? { tracer: telemetry.tracer } : {};
        const labels = new LabelCap(config.metrics.maxLabelValues);
        const redactor = storeRedactor(config.store.redactArguments);
        const feedback = new FeedbackStore(store.sql);
        const judge = createJudge(config.judge, {
            store,
            metrics,
            labels,
            log,
            now: Date.now,
            redactor,
            negativeFeedback: (ids) => feedback.negativeTraces(ids),
            ...tracer,
        }, { requireEnabled: false });
        if (!judge.job) {
            io.err('toolwatch: judge.model is not set; nothing to run\n');
            return 2;
        }
        const summary = await judge.job.run();
        io.out(`${JSON.stringify(summary)}\n`);
        return summary.status === 'failed' ? 1 : 0;
    }
    finally {
        await telemetry.shutdown();
    }
}
/** All lines are checked first; nothing is stored unless every line is a valid label. */
async function importLabels(file, config, store, io) {
    let text;
    try {
        text = readFileSync(file, 'utf8');
    }
    catch (err) {
        io.err(`toolwatch: cannot read ${file}: ${err.message}\n`);
        return 2;
    }
    const labels = [];
    const problems = [];
    text.split('\n').forEach((line, i) => {
        if (!line.trim())
            return;
        let value;
        try {
            value = JSON.parse(line);
        }
        catch {
            problems.push(`line ${i + 1}: not JSON`);
            return;
        }
        const c = checkLabel(value);
        if (c.ok)
            labels.push(c.value);
        else
            problems.push(`line ${i + 1}: ${c.error}`);
    });
    if (problems.length) {
        io.err(`toolwatch: ${file}: ${problems.length} invalid line(s), nothing imported:\n  ${problems.slice(0, 50).join('\n  ')}\n`);
        return 2;
    }
    const wiring = {
        store,
        metrics: createMetrics(),
        labels: new LabelCap(1),
        log: createLogger(config.logLevel),
        now: Date.now,
    };
    const judge = createJudge(config.judge, { ...wiring, redactor: storeRedactor(config.store.redactArguments) }, { requireEnabled: true });
    const stored = await judge.store.labels.upsertLabels(labels, Date.now());
    const c = await judge.calibration();
    io.out(`${JSON.stringify({ imported: stored, calibration: c })}\n`);
    return 0;
}
/** True when run as a program — also through npm's bin symlink (node_modules/.bin/toolwatch). */
function isEntry() {
    try {
        return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
    }
    catch {
        return false;
    }
}
if (isEntry()) {
    runCli(process.argv.slice(2), process.env).then((code) => {
        if (code !== 0)
            process.exitCode = code;
    }, (err) => {
        process.stderr.write(`toolwatch: ${err.stack ?? String(err)}\n`);
        process.exit(1);
    });
}
//# sourceMappingURL=cli.js.map