/**
 * `toolwatch demo [--duration 3m] [--history 30m] [--rate 4] [--port 8080] [--host 127.0.0.1]
 * [--db FILE] [--seed 42] [--exit]` (and `npm run demo`): starts the demo (src/demo/run.ts), prints
 * the page's address, and keeps serving after the live traffic until Ctrl-C (or exits with --exit).
 */
import { parseDuration } from '../util/duration.js';
import { DEMO_DEFAULTS, startDemo } from './run.js';
import { DEMO_USAGE } from './usage.js';
export function parseDemoArgs(argv) {
    const o = { ...DEMO_DEFAULTS };
    const problems = [];
    let exit = false;
    for (let i = 0; i < argv.length; i++) {
        const flag = argv[i];
        if (flag === '--exit') {
            exit = true;
            continue;
        }
        const value = argv[i + 1];
        if (value === undefined || value.startsWith('--')) {
            problems.push(`${flag}: needs a value`);
            continue;
        }
        i++;
        const duration = () => {
            const ms = parseDuration(value);
            if (ms === undefined)
                problems.push(`${flag}: not a duration (30s, 3m, 1h): ${value}`);
            return ms ?? 0;
        };
        const int = (min, max) => {
            const n = Number(value);
            if (!Number.isInteger(n) || n < min || n > max)
                problems.push(`${flag}: an integer from ${min} to ${max}: ${value}`);
            return n;
        };
        if (flag === '--duration')
            o.durationMs = duration();
        else if (flag === '--history') {
            o.historyMs = duration();
            if (o.historyMs > 6 * 3_600_000)
                problems.push('--history: at most 6h');
        }
        else if (flag === '--rate')
            o.rate = int(0, 200);
        else if (flag === '--port')
            o.port = int(0, 65_535);
        else if (flag === '--host')
            o.host = value;
        else if (flag === '--db')
            o.dbPath = value;
        else if (flag === '--seed')
            o.seed = int(0, 2 ** 31 - 1);
        else
            problems.push(`unknown option ${flag}`);
    }
    return problems.length ? { ok: false, problems } : { ok: true, options: o, exit };
}
export async function runDemoCli(argv, io) {
    const args = parseDemoArgs(argv);
    if (!args.ok) {
        io.err(`toolwatch demo: ${args.problems.join('\n  ')}\nusage: ${DEMO_USAGE}\n`);
        return 2;
    }
    const run = await startDemo(args.options, (line) => io.out(`toolwatch demo: ${line}\n`));
    io.out(`toolwatch demo: open ${run.url}/ — three agents (support-bot, shop-agent, research-agent) are sending spans\n`);
    // Ctrl-C (or SIGTERM) ends the live traffic early, or the serving after it.
    const signalled = new Promise((resolve) => {
        const on = () => {
            resolve();
            void run.stop();
        };
        process.once('SIGINT', on);
        process.once('SIGTERM', on);
    });
    const stats = await run.done;
    io.out(`toolwatch demo: sent ${stats.turns.toLocaleString('en-US')} agent turns (${stats.backfilled.toLocaleString('en-US')} backfilled)${args.exit ? '' : `; still serving ${run.url}/ — Ctrl-C to stop`}\n`);
    if (!args.exit)
        await signalled;
    await run.stop();
    return 0;
}
//# sourceMappingURL=cli.js.map