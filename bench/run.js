/**
 * `npm run bench`: the ingest benchmark, in one run.
 *
 *   1. fixtures: 200 distinct OTLP/protobuf bodies of 100 GenAI-heavy spans (bench/fixtures.js)
 *   2. baseline: bench/baseline.js (Fastify + toolwatch's decodeProtobuf, nothing else) pinned to
 *      one core, max throughput from the load generator pinned to the other core
 *   3. toolwatch: `node dist/main.js` (defaults, SQLite in a temp dir; npm start's GLIBC_TUNABLES and node
 *      flags) pinned to the same core, alone:
 *      max throughput until its one-call-one-count memory is full (dedupe.max_traces, 200,000 by
 *      default: the steady state of a busy instance), max throughput in that steady state (the figure
 *      the ratio uses), then a fixed
 *      rate at half of its own max, then (when below its max) a fixed rate of 42.5k spans/s (half
 *      the 85k spans/s aim)
 *      then late resends of 5 % of the max phase's batches (--late-resend), then a soak (--soak)
 *   4. checks /metrics against what was sent (every call counted once, by outcome), reads peak RSS
 *      (VmHWM), prints the table. Targets are ratios within this run, so the machine cancels out.
 *
 * Exit 0 even when a target is missed (it is a report); 1 when something broke: a server did not
 * start, a request failed or got a non-200, or the counters disagree with what was sent.
 *
 * Options (node bench/run.js …; npm run bench -- …):
 *   --duration S        measured seconds of each max phase (default 8; warm-up --warmup S, default 2)
 *   --no-fill           skip filling the dedupe memory first (a cold, smaller heap: flattering)
 *   --connections N     keep-alive connections of the load generator (16)
 *   --bodies N          distinct fixture bodies (200)
 *   --node-flags=FLAGS  extra node flags for toolwatch, e.g. --node-flags="--max-semi-space-size=32"
 *   --cpu-prof DIR      write a V8 CPU profile of toolwatch; summarise with node bench/profile-top.js FILE
 *   --keep-stderr FILE  save toolwatch's stderr/stdout (with --node-flags=--trace-gc, say)
 *   --json FILE         every figure as JSON
 *   --dist DIR          run toolwatch from another build (default dist/), for before/after comparisons
 *   --max-traces N      dedupe.max_traces for toolwatch (default: unset, i.e. its own default, 200,000 here;
 *                       give the old build's 20000 to run it as it shipped)
 *   --late-resend S     resend 5 % of the max phase's batches S seconds after it ended (default 60; 0: skip)
 *   --allow-shed        treat 503 answers (load shedding on a busy shared machine) as refused batches, not
 *                       a failure: nothing of them is recorded, so the counters must still match the 200s
 *   --repeat N          run the whole benchmark N times (each its own processes) and report the medians
 *   --store postgres    toolwatch on PostgreSQL: a throwaway cluster (initdb + pg_ctl in a temp dir, run as
 *                       the postgres user when this is root); skipped with a message when they are missing
 *   --ready-timeout S   seconds toolwatch may take to become ready (default 120; start-up on a loaded machine is slow)
 *   --gc-tail           after each fixed-rate phase, how many of its requests at or over the p99 waited on one of
 *                       toolwatch's GC pauses (bench/gc-pauses.js logs them, bench/gc-tail.js reads them)
 *   --judge             a second toolwatch with the judge enabled at its defaults but idle 1s (bench/judge-cost.js): fill, max
 *                       and the ½-max rate as above; CPU per batch at that rate and peak RSS against this run's
 *   --background        ingest p99 at half its own max (judge on) while alert rules evaluate 24 h of minute aggregates and the
 *                       judge runs over 100 trajectories, against the same rate without them (bench/background.js);
 *                       --background-duration S: measured seconds of each of its two runs (default 30)
 *   --soak DURATION     after the phases, a fixed rate of 35 % of its max for DURATION (20m, 90s): RSS growth
 *                       over the last 15 min (the last 3/4 of a shorter soak) and RSS ÷ V8 heap used
 */
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { backgroundProblems, backgroundRow, runBackground } from './background.js';
import { generateFixtures, OUTCOMES } from './fixtures.js';
import { judgeCostProblems, judgeCostRows, runJudgeCost } from './judge-cost.js';
import { measureChangesCost } from './changes-cost.js';
import { describeTail, explainTail, readPauses } from './gc-tail.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = parseArgs(process.argv.slice(2));
const DURATION = num(args.duration, 8);
const WARMUP = num(args.warmup, 2);
const CONNECTIONS = num(args.connections, 16);
const BODIES = num(args.bodies, 200);
const RATE_DURATION = num(args['rate-duration'], 6);
const CPU_PROF = args['cpu-prof'] ? path.resolve(args['cpu-prof']) : undefined;
/** Which build of toolwatch to run (A/B against a copy of another build). */
const DIST = path.resolve(ROOT, args.dist ? String(args.dist) : 'dist');
const AIM_SPANS = 85_000;
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 50;
const TARGET_RSS_MB = 300;
/** toolwatch's default dedupe.max_traces (the benchmark runs every other setting at its default). */
const DEDUPE_CAP = args['max-traces'] ? num(args['max-traces'], 200_000) : 200_000;
const TARGET_TRACES = 200_000;
const TARGET_CPU_FACTOR = 2;
const TARGET_BYTES_PER_TRACE = 200;
const TARGET_P99_VS_CONTROL = 3;
/** Every RESEND_EVERY-th batch of the max phase is sent again (5 %), LATE_RESEND_S after the phase. */
const RESEND_EVERY = 20;
const LATE_RESEND_S = num(args['late-resend'], 60);
const STORE = args.store ? String(args.store) : 'sqlite';
const SOAK_S = args.soak ? parseDuration(String(args.soak)) : 0;
const SOAK_SHARE = 0.35;
const TARGET_SOAK_GROWTH_MB = 32;
const TARGET_SOAK_RSS_PER_HEAP = 2;
const TARGET_PG_RATIO = 0.4;
/** Seconds toolwatch may take to answer /readyz 200 (wall time: a loaded machine stretches start-up). */
const READY_S = num(args['ready-timeout'], 120);
/** --gc-tail: which of the fixed-rate phases' slowest requests toolwatch's GC pauses explain (bench/gc-tail.js). */
const GC_TAIL = Boolean(args['gc-tail']);
/**
 * The changes work (definition hashing, versions, events), in-process, as a share of toolwatch's CPU
 * per batch; the definition hashing alone (cached per distinct definitions value) is held to it too.
 */
const TARGET_CHANGES_SHARE = 0.02;
/** What signatures and problem writes may add to a batch's CPU time (bench/problems-cost.js). */
const TARGET_PROBLEMS_SHARE = 0.05;

// ---------------------------------------------------------------- cleanup on every exit path

const children = new Set();
let tmp;
/** Stops the throwaway PostgreSQL cluster of --store postgres (synchronously: it runs on exit too). */
let pgStop;

function cleanup() {
  for (const c of children) {
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
  pgStop?.();
  if (tmp) {
    rmSync(tmp, { recursive: true, force: true });
    tmp = undefined;
  }
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => {
    process.stderr.write(`\nbench: ${sig}, stopping\n`);
    cleanup();
    process.exit(130);
  });
}

class BenchError extends Error {}

main().then(
  (code) => {
    cleanup();
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`bench: ${err instanceof BenchError ? err.message : (err.stack ?? err)}\n`);
    cleanup();
    process.exit(1);
  },
);

async function main() {
  if (num(args.repeat, 1) > 1) return repeat(num(args.repeat, 1));
  if (!existsSync(path.join(DIST, 'main.js')))
    throw new BenchError(`${path.join(DIST, 'main.js')} is missing: run \`npm run build\` first (npm run bench does)`);
  const started = Date.now();
  const cpus = pickCpus();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'toolwatch-bench-'));

  // ------------------------------------------------------------ fixtures
  const t0 = Date.now();
  const fx = generateFixtures({ bodies: BODIES, spansPerBody: 100, failRate: 0.1 });
  const fixturesDir = path.join(tmp, 'fixtures');
  mkdirSync(fixturesDir);
  let start = 0;
  const metaBodies = fx.meta.map((m, i) => {
    const entry = {
      start,
      length: fx.bodies[i].length,
      spans: m.spans,
      calls: m.calls,
      outcomes: m.outcomes,
      traceIdOffsets: m.traceIdOffsets,
    };
    start += fx.bodies[i].length;
    return entry;
  });
  writeFileSync(path.join(fixturesDir, 'bodies.bin'), Buffer.concat(fx.bodies));
  writeFileSync(path.join(fixturesDir, 'meta.json'), JSON.stringify({ outcomeNames: OUTCOMES, bodies: metaBodies }));
  const failing = fx.totals.calls - fx.totals.outcomes.valid;
  log(
    `fixtures: ${fx.totals.bodies} bodies × 100 spans, ${(fx.totals.bytes / fx.totals.bodies / 1024).toFixed(0)} KiB/body on average, ` +
      `${(fx.totals.calls / fx.totals.bodies).toFixed(1)} tool calls/body, ${((100 * failing) / fx.totals.calls).toFixed(1)}% failing ` +
      `(${OUTCOMES.filter((o) => o !== 'valid')
        .map((o) => `${o} ${fx.totals.outcomes[o]}`)
        .join(', ')}) — built in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const spansPerBody = 100;
  /** Runs one load phase and records what the server process and its core did meanwhile. */
  const load = async (server, mode, extra) => {
    const before = cpuSnapshot(server.child.pid, cpus.server);
    const r = await runLoad(cpus, {
      fixtures: fixturesDir,
      port: server.port,
      mode,
      connections: CONNECTIONS,
      warmup: WARMUP,
      duration: DURATION,
      ...extra,
    });
    const after = cpuSnapshot(server.child.pid, cpus.server);
    r.server = cpuDelta(before, after, r.total.requests);
    return r;
  };

  // ------------------------------------------------------------ baseline
  log(
    `baseline: decode-only receiver on CPU ${cpus.server ?? '(unpinned)'}, load on CPU ${cpus.load ?? '(unpinned)'}, ${CONNECTIONS} connections, ${WARMUP}+${DURATION} s`,
  );
  const base = await startBaseline(cpus);
  const baseMax = await load(base, 'max', { runId: 1 });
  await stopChild(base.child);
  checkLoad('baseline max', baseMax);
  log(`  ${fmtInt(baseMax.spansPerS)} spans/s${cpuNote(baseMax)}`);

  // ------------------------------------------------------------ toolwatch
  let pgUrl;
  if (STORE === 'postgres') {
    pgUrl = await startPostgres();
    if (!pgUrl) return 0;
  } else if (STORE !== 'sqlite') throw new BenchError(`--store ${STORE}: sqlite or postgres`);
  const tw = await startToolwatch(cpus, pgUrl);
  log(
    `toolwatch: node ${path.relative(ROOT, path.join(DIST, 'main.js'))} (pid ${tw.child.pid}) on CPU ${cpus.server ?? '(unpinned)'}, ${pgUrl ? `PostgreSQL at ${pgUrl}` : `SQLite in ${tw.dir}`}`,
  );
  const twCheck = (name, r) => {
    try {
      checkLoad(name, r);
    } catch (err) {
      const state =
        tw.child.exitCode !== null || tw.child.signalCode !== null
          ? `toolwatch exited (${tw.child.exitCode ?? tw.child.signalCode})`
          : 'toolwatch is still running';
      throw new BenchError(`${err.message}\n${state}; its stderr:\n${tw.stderr() || '(empty)'}`);
    }
  };
  // Steady state first: in production the one-call-one-count memory is full (at 85k spans/s it
  // fills in seconds), and a full memory means a big old generation for the GC to mark.
  let twFill;
  if (!args['no-fill']) {
    // The dedupe memory remembers the traces that carry tool calls.
    const tracesPerBody = fx.totals.toolTraces / fx.totals.bodies;
    const fillRequests = Math.ceil((DEDUPE_CAP * 1.1) / tracesPerBody);
    twFill = await load(tw, 'max', { runId: 2, warmup: 0, duration: 900, requests: fillRequests });
    twCheck('toolwatch while filling its dedupe memory', twFill);
    const traces = sumMetric(
      await (await fetch(`http://127.0.0.1:${tw.port}/metrics`)).text(),
      'toolwatch_dedupe_traces',
    ).total;
    log(
      `  filled the dedupe memory: ${fmtInt(twFill.total.ok)} of ${fmtInt(fillRequests)} batches answered 200 (${fmtInt(twFill.total.ok * tracesPerBody)} traces with tool calls) at ${fmtInt(twFill.spansPerS)} spans/s; it holds ${fmtInt(traces)} traces now`,
    );
    if (twFill.sent < fillRequests)
      log(
        `  note: the fill stopped at its ${900} s limit after ${fmtInt(twFill.sent)} of ${fmtInt(fillRequests)} batches: the memory is not full (a slow or busy machine; try --max-traces)`,
      );
  }
  const twMax = await load(tw, 'max', { runId: 3 });
  const twMaxEnded = Date.now();
  twCheck('toolwatch max', twMax);
  log(`  max: ${fmtInt(twMax.spansPerS)} spans/s${cpuNote(twMax)}`);
  const problemsCost = measureProblemsCost(cpus, twMax);
  const halfRate = twMax.requestsPerS / 2;
  const twHalf = await load(tw, 'rate', {
    runId: 4,
    rate: halfRate,
    warmup: 1,
    duration: RATE_DURATION,
    tail: GC_TAIL,
  });
  twCheck('toolwatch at half its max', twHalf);
  log(`  half of its max (${fmtInt(halfRate * spansPerBody)} spans/s): p99 ${twHalf.latencyMs.p99} ms`);
  const gcTail = {};
  if (GC_TAIL) gcTail.half = await tailNote(tw, twHalf, 'the tail at half its max');
  // Control: the decode-only receiver at the same fixed rate (toolwatch sits idle meanwhile), so the
  // p99 above can be read against what the machine, the loopback and the generator add by themselves.
  const control = await startBaseline(cpus);
  const baseHalf = await load(control, 'rate', { runId: 6, rate: halfRate, warmup: 1, duration: RATE_DURATION });
  await stopChild(control.child);
  checkLoad('baseline at the same fixed rate', baseHalf);
  log(`  control: the decode-only receiver at the same rate: p99 ${baseHalf.latencyMs.p99} ms`);
  const aimRate = AIM_SPANS / 2 / spansPerBody;
  let twAim;
  if (aimRate < 0.9 * twMax.requestsPerS) {
    twAim = await load(tw, 'rate', { runId: 5, rate: aimRate, warmup: 1, duration: RATE_DURATION, tail: GC_TAIL });
    twCheck('toolwatch at 42.5k spans/s', twAim);
    log(`  at ${fmtInt(AIM_SPANS / 2)} spans/s: p99 ${twAim.latencyMs.p99} ms`);
    if (GC_TAIL) gcTail.aim = await tailNote(tw, twAim, `the tail at ${fmtInt(AIM_SPANS / 2)} spans/s`);
  } else {
    log(`  skipped the fixed ${fmtInt(AIM_SPANS / 2)} spans/s phase: it is above 90% of toolwatch's measured max here`);
  }

  // Late resends: an exporter whose answer was lost retries; minutes later it must still be a duplicate.
  let twLate;
  if (LATE_RESEND_S > 0) {
    const wait = twMaxEnded + LATE_RESEND_S * 1000 - Date.now();
    if (wait > 0) {
      log(
        `  waiting ${(wait / 1000).toFixed(0)} s to resend 5 % of the max phase's batches ${LATE_RESEND_S} s after it`,
      );
      await new Promise((r) => setTimeout(r, wait));
    }
    const refused = new Set(twMax.refused ?? []);
    let upTo = 0;
    for (let q = RESEND_EVERY; q <= twMax.sent; q += RESEND_EVERY) if (!refused.has(q)) upTo++;
    const before = await (await fetch(`http://127.0.0.1:${tw.port}/metrics`)).text();
    twLate = await load(tw, 'max', {
      runId: 7,
      warmup: 0,
      duration: 120,
      requests: upTo,
      resend: { runId: 3, every: RESEND_EVERY, skip: twMax.refused ?? [] },
    });
    twCheck('toolwatch, late resends', twLate);
    const after = await (await fetch(`http://127.0.0.1:${tw.port}/metrics`)).text();
    const delta = (name) => sumMetric(after, name).total - sumMetric(before, name).total;
    twLate.late = {
      batches: twLate.total.ok,
      calls: twLate.total.calls,
      counted: delta('toolwatch_tool_calls_total'),
      duplicateSpans: delta('toolwatch_duplicate_spans_total'),
      ageS: (Date.now() - twMaxEnded) / 1000,
    };
    log(
      `  late resends: ${fmtInt(twLate.late.batches)} batches (${fmtInt(twLate.late.calls)} calls) ≥ ${LATE_RESEND_S} s after their first send: ` +
        `${fmtInt(twLate.late.counted)} calls counted again, ${fmtInt(twLate.late.duplicateSpans)} spans recognised as duplicates`,
    );
  }

  let soak;
  if (SOAK_S > 0) {
    soak = await runSoak(tw, load, twMax.requestsPerS * SOAK_SHARE);
    twCheck('toolwatch soak', soak.run);
  }

  // ------------------------------------------------------------ counters and memory
  const phases = [twFill, twMax, twHalf, twAim, soak?.run].filter(Boolean);
  const sent = { requests: 0, spans: 0, calls: 0, outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) };
  for (const p of phases) {
    sent.requests += p.total.ok;
    sent.spans += p.total.spans;
    sent.calls += p.total.calls;
    for (const o of OUTCOMES) sent.outcomes[o] += p.total.outcomes[o];
  }
  const metricsText = await (await fetch(`http://127.0.0.1:${tw.port}/metrics`)).text();
  const counted = sumMetric(metricsText, 'toolwatch_tool_calls_total', 'outcome');
  const spansCounted = sumMetric(metricsText, 'toolwatch_spans_received_total').total;
  const dupes = sumMetric(metricsText, 'toolwatch_duplicate_spans_total').total;
  const evicted = sumMetric(metricsText, 'toolwatch_dedupe_evicted_total').total;
  const mem = {
    heapUsedMb: sumMetric(metricsText, 'nodejs_heap_size_used_bytes').total / 1048576,
    heapTotalMb: sumMetric(metricsText, 'nodejs_heap_size_total_bytes').total / 1048576,
    externalMb: sumMetric(metricsText, 'nodejs_external_memory_bytes').total / 1048576,
    traces: sumMetric(metricsText, 'toolwatch_dedupe_traces').total,
    /** The dedupe memory's own arrays (a gauge the old build does not have: 0 there). */
    dedupeBytes: sumMetric(metricsText, 'toolwatch_dedupe_memory_bytes').total,
  };
  const rss = readRss(tw.child.pid);
  const threads = threadCpu(tw.child.pid);
  await stopChild(tw.child, 15_000);
  // In this process once toolwatch is gone (bench/changes-cost.js), over the same bodies, from the same build.
  const changes = await measureChangesCost({
    dist: DIST,
    bodies: BODIES,
    fixtures: { spansPerBody: 100, failRate: 0.1 },
  });
  if (args['keep-stderr']) writeFileSync(path.resolve(args['keep-stderr']), tw.stderr() + tw.stdout());
  const extra = await extraPhases({ cpus, load, fillRequests: twFill ? twFill.sent : 0, rate: halfRate });

  const problems = [];
  const byOutcome = OUTCOMES.map((o) => ({ o, sent: sent.outcomes[o], counted: counted.by[o] ?? 0 }));
  if (counted.total !== sent.calls)
    problems.push(`toolwatch_tool_calls_total is ${counted.total}, the load generator sent ${sent.calls} calls`);
  for (const r of byOutcome)
    if (r.sent !== r.counted) problems.push(`outcome ${r.o}: counted ${r.counted}, sent ${r.sent}`);
  if ((counted.by.unvalidated ?? 0) !== 0)
    problems.push(`${counted.by.unvalidated} calls counted unvalidated, expected 0`);
  const resentSpans = twLate ? twLate.total.spans : 0;
  if (spansCounted !== sent.spans + resentSpans)
    problems.push(`toolwatch_spans_received_total is ${spansCounted}, sent ${sent.spans + resentSpans}`);
  const lateDupes = twLate ? twLate.late.duplicateSpans : 0;
  if (dupes !== lateDupes)
    problems.push(
      `toolwatch_duplicate_spans_total is ${dupes}, expected ${lateDupes} (only the late resends repeat a batch)`,
    );
  if (twLate && twLate.late.counted !== 0)
    problems.push(
      `late resends: ${twLate.late.counted} calls counted again (expected 0: every resent batch is a duplicate)`,
    );
  // Each resent call has at least its proposing span and its tool span: both must be recognised.
  if (extra.judge) problems.push(...judgeCostProblems(extra.judge));
  if (extra.background) problems.push(...backgroundProblems(extra.background));
  if (twLate && twLate.late.duplicateSpans < twLate.late.calls)
    problems.push(
      `late resends: only ${twLate.late.duplicateSpans} duplicate spans for ${twLate.late.calls} resent calls`,
    );

  // ------------------------------------------------------------ report
  const ratio = twMax.spansPerS / baseMax.spansPerS;
  const rows = [
    ['baseline (decode only), max', baseMax],
    ...(twFill ? [[`toolwatch, max, dedupe memory filling (0 → ${fmtInt(DEDUPE_CAP)} traces)`, twFill]] : []),
    [twFill ? 'toolwatch, max, dedupe memory full' : 'toolwatch, max', twMax],
    [`toolwatch, fixed ${fmtInt(halfRate * spansPerBody)} spans/s (½ its max)`, twHalf],
    [`baseline, same fixed rate (control)`, baseHalf],
    ...(twAim ? [[`toolwatch, fixed ${fmtInt(AIM_SPANS / 2)} spans/s (½ of 85k aim)`, twAim]] : []),
    ...(twLate ? [[`toolwatch, late resends (5 % of the max phase, ${LATE_RESEND_S} s later)`, twLate]] : []),
  ];
  const out = [];
  out.push('');
  out.push(
    `toolwatch ingest benchmark — ${new Date().toISOString()}, node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}`,
  );
  out.push(
    `${fx.totals.bodies} distinct OTLP/protobuf bodies × 100 spans (${(fx.totals.bytes / fx.totals.bodies / 1024).toFixed(0)} KiB avg, ` +
      `${(fx.totals.calls / fx.totals.bodies).toFixed(1)} tool calls each, ${((100 * failing) / fx.totals.calls).toFixed(1)}% failing); ` +
      `server on CPU ${cpus.server ?? '-'}, load generator on CPU ${cpus.load ?? '-'}, ${CONNECTIONS} keep-alive connections`,
  );
  out.push('');
  out.push(
    table(
      [
        'phase',
        'spans/s',
        'tool calls/s',
        'req/s',
        'p50 ms',
        'p99 ms',
        'max ms',
        'non-200',
        'server CPU',
        'CPU ms/batch',
      ],
      rows.map(([name, r]) => [
        name,
        fmtInt(r.spansPerS),
        r === baseMax || r === baseHalf ? '(not checked)' : fmtInt(r.callsPerS),
        fmtInt(r.requestsPerS),
        fmt(r.latencyMs.p50),
        fmt(r.latencyMs.p99),
        fmt(r.latencyMs.max),
        String(r.non200),
        r.server ? `${Math.round(r.server.serverShare * 100)}%` : '-',
        r.server ? r.server.cpuMsPerRequest.toFixed(2) : '-',
      ]),
    ),
  );
  out.push('');
  const verdict = (ok) => (ok ? 'PASS' : 'MISS');
  const targetRows = [
    ['throughput: toolwatch / baseline', ratio.toFixed(2), `≥ ${TARGET_RATIO}`, verdict(ratio >= TARGET_RATIO)],
    ...(baseMax.server && twMax.server
      ? [
          [
            '  (same, from server CPU per batch)',
            (baseMax.server.cpuMsPerRequest / twMax.server.cpuMsPerRequest).toFixed(2),
            `≥ ${TARGET_RATIO}`,
            verdict(baseMax.server.cpuMsPerRequest / twMax.server.cpuMsPerRequest >= TARGET_RATIO),
          ],
        ]
      : []),
    [
      '  (toolwatch vs the 85k spans/s aim)',
      `${fmtInt(twMax.spansPerS)}`,
      `≥ ${fmtInt(AIM_SPANS)}`,
      verdict(twMax.spansPerS >= AIM_SPANS),
    ],
    [
      'p99, 100-span batch, at ½ its max',
      `${fmt(twHalf.latencyMs.p99)} ms`,
      `< ${TARGET_P99_MS} ms`,
      verdict(twHalf.latencyMs.p99 < TARGET_P99_MS),
    ],
    ...(twAim
      ? [
          [
            `p99, 100-span batch, at ${fmtInt(AIM_SPANS / 2)} spans/s`,
            `${fmt(twAim.latencyMs.p99)} ms`,
            `< ${TARGET_P99_MS} ms`,
            verdict(twAim.latencyMs.p99 < TARGET_P99_MS),
          ],
        ]
      : []),
    ...(baseMax.server && twMax.server
      ? [
          [
            'CPU ms per batch, toolwatch ÷ decode-only',
            `${(twMax.server.cpuMsPerRequest / baseMax.server.cpuMsPerRequest).toFixed(2)}×`,
            `≤ ${TARGET_CPU_FACTOR}×`,
            verdict(twMax.server.cpuMsPerRequest / baseMax.server.cpuMsPerRequest <= TARGET_CPU_FACTOR),
          ],
        ]
      : []),
    [
      'p99 at ½ its max vs the control at that rate',
      `${(twHalf.latencyMs.p99 / Math.max(0.01, baseHalf.latencyMs.p99)).toFixed(1)}×`,
      `< ${TARGET_P99_VS_CONTROL}×`,
      verdict(twHalf.latencyMs.p99 < TARGET_P99_VS_CONTROL * baseHalf.latencyMs.p99),
    ],
    [
      'one-call-one-count memory (traces held, memory full)',
      fmtInt(mem.traces),
      `≥ ${fmtInt(TARGET_TRACES)}`,
      verdict(mem.traces >= TARGET_TRACES),
    ],
    [
      'live heap bytes per remembered trace, the memory itself',
      mem.dedupeBytes ? fmtInt(mem.dedupeBytes / Math.max(1, mem.traces)) : 'n/a (no gauge)',
      `≤ ${TARGET_BYTES_PER_TRACE}`,
      mem.dedupeBytes ? verdict(mem.dedupeBytes / Math.max(1, mem.traces) <= TARGET_BYTES_PER_TRACE) : 'MISS',
    ],
    [
      '  (V8 heap used + external ÷ remembered traces, everything included)',
      fmtInt(((mem.heapUsedMb + mem.externalMb) * 1048576) / Math.max(1, mem.traces)),
      '(printed)',
      '-',
    ],
    ...(twLate
      ? [
          [
            `exactly once under late resends (${fmtInt(twLate.late.batches)} batches, ${twLate.late.ageS.toFixed(0)} s later)`,
            `${fmtInt(twLate.late.counted)} counted again, ${fmtInt(twLate.late.duplicateSpans)} spans recognised`,
            'all recognised',
            verdict(twLate.late.counted === 0 && twLate.late.duplicateSpans >= twLate.late.calls),
          ],
        ]
      : []),
    ...(pgUrl
      ? [
          [
            'PostgreSQL store: throughput toolwatch / baseline',
            ratio.toFixed(2),
            `≥ ${TARGET_PG_RATIO}`,
            verdict(ratio >= TARGET_PG_RATIO),
          ],
        ]
      : []),
    ...(soak
      ? [
          [
            `soak ${fmtDuration(SOAK_S)} at ${Math.round(SOAK_SHARE * 100)} % of max: RSS growth over ${soak.windowLabel}`,
            `${soak.growthMb.toFixed(1)} MiB`,
            `< ${TARGET_SOAK_GROWTH_MB} MiB`,
            verdict(soak.growthMb < TARGET_SOAK_GROWTH_MB),
          ],
          [
            '  soak: RSS ÷ V8 heap used at the end',
            `${soak.rssPerHeap.toFixed(2)} (${soak.endRssMb.toFixed(0)} / ${soak.endHeapMb.toFixed(0)} MiB)`,
            `< ${TARGET_SOAK_RSS_PER_HEAP}`,
            verdict(soak.rssPerHeap < TARGET_SOAK_RSS_PER_HEAP),
          ],
        ]
      : []),
    ...(extra.judge ? judgeCostRows(extra.judge, verdict) : []),
    ...(extra.background ? [backgroundRow(extra.background, verdict)] : []),
    ...(twMax.server
      ? [
          [
            'changes (definition hashing, versions, events), share of CPU per batch',
            `${((100 * changes.totalMs) / twMax.server.cpuMsPerRequest).toFixed(1)} % (${changes.totalMs.toFixed(3)} of ${twMax.server.cpuMsPerRequest.toFixed(2)} ms)`,
            `≤ ${TARGET_CHANGES_SHARE * 100} %`,
            verdict(changes.totalMs <= TARGET_CHANGES_SHARE * twMax.server.cpuMsPerRequest),
          ],
          [
            '  definition hashing (cached per distinct definitions value), share of CPU per batch',
            `${((100 * changes.hashingMs) / twMax.server.cpuMsPerRequest).toFixed(1)} % (${changes.hashingMs.toFixed(3)} of ${twMax.server.cpuMsPerRequest.toFixed(2)} ms)`,
            `≤ ${TARGET_CHANGES_SHARE * 100} %`,
            verdict(changes.hashingMs <= TARGET_CHANGES_SHARE * twMax.server.cpuMsPerRequest),
          ],
        ]
      : []),
    ...(problemsCost && twMax.server
      ? [
          [
            'problem signatures and writes, share of CPU per batch',
            `${(problemsCost.share * 100).toFixed(1)} % (${problemsCost.cpuMsPerBatch.total.toFixed(3)} of ${twMax.server.cpuMsPerRequest.toFixed(2)} ms)`,
            `≤ ${TARGET_PROBLEMS_SHARE * 100} %`,
            verdict(problemsCost.share <= TARGET_PROBLEMS_SHARE),
          ],
        ]
      : []),
    [
      'peak RSS of toolwatch (VmHWM)',
      rss ? `${rss.hwmMb.toFixed(0)} MB` : 'n/a',
      `< ${TARGET_RSS_MB} MB`,
      rss ? verdict(rss.hwmMb < TARGET_RSS_MB) : '-',
    ],
  ];
  out.push(table(['target', 'measured', 'target', 'result'], targetRows));
  out.push('');
  out.push(
    `counters: toolwatch_tool_calls_total ${fmtInt(counted.total)} = calls sent ${fmtInt(sent.calls)} ` +
      `(${byOutcome.map((r) => `${r.o} ${fmtInt(r.counted)}/${fmtInt(r.sent)}`).join(', ')}); ` +
      `spans ${fmtInt(spansCounted)}/${fmtInt(sent.spans + resentSpans)}; duplicates ${dupes}; dedupe evictions ${fmtInt(evicted)} — ${problems.length ? 'MISMATCH' : 'OK'}`,
  );
  if (rss) {
    out.push(
      `memory at the end: RSS ${rss.rssMb.toFixed(0)} MB (peak ${rss.hwmMb.toFixed(0)} MB); V8 heap ${mem.heapUsedMb.toFixed(0)} MB used of ${mem.heapTotalMb.toFixed(0)} MB, ` +
        `external ${mem.externalMb.toFixed(0)} MB; ${fmtInt(mem.traces)} traces in the dedupe memory (cap ${fmtInt(DEDUPE_CAP)} by default)`,
    );
  }
  if (threads) {
    const all = threads.reduce((a, t) => a + t.ms, 0);
    out.push(
      `toolwatch CPU by thread over its whole run: ${threads.map((t) => `${t.name} ${((100 * t.ms) / all).toFixed(0)}%`).join(', ')} ` +
        `(the V8 profiler sees only the main thread; GC helper threads share the pinned core)`,
    );
  }
  for (const [name, r] of rows) {
    if (r.generatorCpu >= 0.9 && r.mode === 'max')
      out.push(
        `note: the load generator used ${Math.round(r.generatorCpu * 100)}% of its core during "${name}": it may be the limit there`,
      );
    if (r.fellBehind) out.push(`note: "${name}" fell behind its schedule (more than ${5000} requests outstanding)`);
  }
  for (const [name, r] of rows) {
    if (!r.server) continue;
    if (r.mode === 'max' && (r.server.serverShare < 0.9 || r.server.othersShare > 0.1)) {
      out.push(
        `note: during "${name}" the server process got ${Math.round(r.server.serverShare * 100)}% of CPU ${cpus.server} and other processes ` +
          `${Math.round(r.server.othersShare * 100)}%: the machine was busy, throughput figures are low; "CPU ms/batch" is the steadier comparison`,
      );
    } else if (r.mode === 'rate' && r.server.othersShare > 0.1) {
      out.push(
        `note: during "${name}" other processes used ${Math.round(r.server.othersShare * 100)}% of CPU ${cpus.server}: ` +
          `requests waited for the CPU, so the tail latency there is partly the machine's, not toolwatch's`,
      );
    }
  }
  if (!twAim)
    out.push(
      `note: the fixed ${fmtInt(AIM_SPANS / 2)} spans/s phase (half the 85k aim) was skipped: it is above 90% of toolwatch's measured max here`,
    );
  if (!cpus.pinned)
    out.push(
      'note: processes were NOT pinned to cores (see the warning above): numbers are not comparable across machines',
    );
  out.push(`total time ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.stdout.write(out.join('\n') + '\n');
  if (args.json)
    writeFileSync(
      path.resolve(args.json),
      JSON.stringify(
        {
          fixtures: fx.totals,
          baseMax,
          baseHalf,
          twFill,
          twMax,
          twHalf,
          twAim,
          twLate,
          soak,
          judge: extra.judge,
          background: extra.background,
          store: STORE,
          rss,
          mem,
          threads,
          changes: {
            ...changes,
            shareOfCpuPerBatch: twMax.server ? changes.totalMs / twMax.server.cpuMsPerRequest : null,
            hashingShareOfCpuPerBatch: twMax.server ? changes.hashingMs / twMax.server.cpuMsPerRequest : null,
          },
          counted,
          sent,
          ratio,
          problemsCost,
          gcTail: GC_TAIL ? gcTail : undefined,
        },
        null,
        2,
      ),
    );

  if (problems.length) {
    process.stderr.write(`bench: counters disagree with what was sent:\n  - ${problems.join('\n  - ')}\n`);
    return 1;
  }
  return 0;
}

// ---------------------------------------------------------------- --judge, --background

/** The phases of their own modules, each on a toolwatch of its own started after the main one stopped. */
async function extraPhases({ cpus, load, fillRequests, rate }) {
  const h = {
    startToolwatch: (opts) => startToolwatch(cpus, undefined, opts),
    stopChild,
    load,
    checkLoad,
    metrics: async (port) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
    sumMetric,
    readRss,
    log,
    dist: DIST,
  };
  const out = {};
  if ((args.judge || args.background) && STORE !== 'sqlite') {
    log('--judge, --background: skipped — they run on SQLite (the default store) only');
    return out;
  }
  if (args.judge) out.judge = await runJudgeCost(h, { fillRequests, rate, rateDuration: RATE_DURATION });
  if (args.background) out.background = await runBackground(h, { duration: num(args['background-duration'], 30) });
  return out;
}

// ---------------------------------------------------------------- problems cost

/**
 * bench/problems-cost.js in its own process on toolwatch's core (idle between phases), settling as
 * often as the server does at the max phase's rate (a round every 100 ms with the default graces);
 * its CPU ms per batch ÷ toolwatch's of the max phase is the share. Undefined (and said) when it failed.
 */
function measureProblemsCost(cpus, max) {
  const settleEvery = Math.max(1, Math.round(max.requestsPerS * 0.1));
  const argv = [path.join(ROOT, 'bench', 'problems-cost.js'), '--dist', DIST, '--bodies', String(BODIES)];
  argv.push('--settle-every', String(settleEvery), '--json');
  const pinned = cpus.server === undefined ? [] : ['-c', String(cpus.server), process.execPath];
  const r = spawnSync(pinned.length ? 'taskset' : process.execPath, [...pinned, ...argv], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0) {
    log(
      `  problems cost: not measured (${(r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0]})`,
    );
    return undefined;
  }
  const cost = JSON.parse(r.stdout.trim().split('\n').pop());
  cost.share = max.server ? cost.cpuMsPerBatch.total / max.server.cpuMsPerRequest : undefined;
  log(
    `  problems cost: ${cost.cpuMsPerBatch.total.toFixed(3)} CPU ms per batch (signatures and deltas ${cost.cpuMsPerBatch.work.toFixed(3)}, SQL ${cost.cpuMsPerBatch.sql.toFixed(3)}; settle every ${settleEvery} batches)`,
  );
  return cost;
}

// ---------------------------------------------------------------- --repeat

/** Runs the benchmark n times, each a child of its own (fresh processes, fresh store), and prints the medians. */
async function repeat(n) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolwatch-bench-repeat-'));
  const argv = [];
  for (let i = 2; i < process.argv.length; i++) {
    const a = process.argv[i];
    if (a === '--repeat') i++;
    else if (a.startsWith('--repeat=')) continue;
    else if (a === '--json') i++;
    else argv.push(a);
  }
  const runs = [];
  try {
    for (let i = 0; i < n; i++) {
      const file = path.join(dir, `run-${i}.json`);
      log(`repeat: run ${i + 1} of ${n}`);
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...argv, '--json', file], {
        stdio: 'inherit',
      });
      if (r.status !== 0) throw new BenchError(`run ${i + 1} of ${n} failed (exit ${r.status ?? r.signal})`);
      runs.push(JSON.parse(readFileSync(file, 'utf8')));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (xs) => {
    const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    if (!v.length) return NaN;
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  const col = (f) =>
    runs.map((r) => {
      try {
        return f(r);
      } catch {
        return NaN;
      }
    });
  const rows = [
    ['throughput ratio toolwatch / baseline', col((r) => r.ratio), (x) => x.toFixed(2)],
    ['CPU ms per batch, baseline', col((r) => r.baseMax.server.cpuMsPerRequest), (x) => x.toFixed(2)],
    ['CPU ms per batch, toolwatch (memory full)', col((r) => r.twMax.server.cpuMsPerRequest), (x) => x.toFixed(2)],
    [
      'CPU per batch, toolwatch ÷ baseline',
      col((r) => r.twMax.server.cpuMsPerRequest / r.baseMax.server.cpuMsPerRequest),
      (x) => `${x.toFixed(2)}×`,
    ],
    ['p99 at ½ its max (ms)', col((r) => r.twHalf.latencyMs.p99), (x) => x.toFixed(1)],
    ['control p99 (ms)', col((r) => r.baseHalf.latencyMs.p99), (x) => x.toFixed(1)],
    ['peak RSS (MB)', col((r) => r.rss.hwmMb), (x) => x.toFixed(0)],
    ['traces in the dedupe memory', col((r) => r.mem.traces), fmtInt],
    ['dedupe memory bytes per trace', col((r) => r.mem.dedupeBytes / r.mem.traces), (x) => x.toFixed(0)],
  ];
  const out = ['', `median of ${n} runs (each run's own table above; the quiet-machine notes there apply to each)`];
  out.push(
    table(
      ['figure', 'median', 'runs'],
      rows.map(([name, xs, f]) => [
        name,
        Number.isFinite(median(xs)) ? f(median(xs)) : 'n/a',
        xs.map((x) => (Number.isFinite(x) ? f(x) : '-')).join(' / '),
      ]),
    ),
  );
  process.stdout.write(out.join('\n') + '\n');
  if (args.json) writeFileSync(path.resolve(args.json), JSON.stringify(runs, null, 2));
  return 0;
}

// ---------------------------------------------------------------- processes

/** Server core and load core: the first two CPUs this process may use; pins this process to the load core. */
function pickCpus() {
  let allowed;
  try {
    const out = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' });
    allowed = parseCpuList(out.slice(out.lastIndexOf(':') + 1).trim());
  } catch {
    process.stderr.write(
      'bench: WARNING: `taskset` (util-linux) is not available: processes run unpinned and compete for cores\n',
    );
    return { pinned: false };
  }
  if (allowed.length < 2) {
    process.stderr.write(
      `bench: WARNING: only ${allowed.length} CPU available (${allowed.join(',')}): server and load generator share it, numbers are pessimistic\n`,
    );
    return { pinned: false };
  }
  const [server, load] = allowed;
  try {
    // The orchestrator (mostly idle) stays off the server's core too; all its threads.
    execFileSync('taskset', ['-a', '-c', '-p', String(load), String(process.pid)], { stdio: 'ignore' });
  } catch {
    // not fatal
  }
  return { pinned: true, server, load };
}

function parseCpuList(s) {
  const out = [];
  for (const part of s.split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (Number.isInteger(a)) for (let i = a; i <= (Number.isInteger(b) ? b : a); i++) out.push(i);
  }
  return out;
}

function spawnPinned(cpu, argv, opts) {
  const [cmd, cmdArgs] = cpu === undefined ? [argv[0], argv.slice(1)] : ['taskset', ['-c', String(cpu), ...argv]];
  // taskset execs the command, so the child's pid is the node process itself.
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function startBaseline(cpus) {
  const child = spawnPinned(cpus.server, [process.execPath, path.join(ROOT, 'bench/baseline.js'), '0'], { cwd: ROOT });
  const stderr = collect(child.stderr);
  const line = await firstLine(child, READY_S * 1000);
  let ready;
  try {
    ready = JSON.parse(line);
  } catch {
    throw new BenchError(`the baseline receiver did not start: ${line}\n${stderr()}`);
  }
  return { child, port: ready.port };
}

/**
 * How `npm start` starts toolwatch (the Dockerfile's ENV and CMD say the same): its leading
 * `NAME=value` words (the allocator's settings, GLIBC_TUNABLES) and its node flags, so the benchmark
 * runs toolwatch as users do. The variables go to toolwatch only, not to the baseline or the load
 * generator; one set in the benchmark's own environment wins (`GLIBC_TUNABLES= node bench/run.js`: without).
 */
function startCommand() {
  const words = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
    .scripts.start.split(/\s+/)
    .filter(Boolean);
  const env = {};
  let i = 0;
  for (; i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]); i++) {
    const eq = words[i].indexOf('=');
    env[words[i].slice(0, eq)] = words[i].slice(eq + 1);
  }
  const flags = words.slice(i).filter((w) => w.startsWith('--') && w !== '--enable-source-maps');
  return { env, flags };
}

/** A throwaway PostgreSQL cluster for --store postgres: its URL, or undefined (with a message) when it cannot be had. */
async function startPostgres() {
  const dirs = [
    '/usr/lib/postgresql/17/bin',
    '/usr/lib/postgresql/16/bin',
    '/usr/lib/postgresql/15/bin',
    ...(process.env.PATH ?? '').split(':'),
  ];
  const bin = dirs.find((d) => d && existsSync(path.join(d, 'initdb')) && existsSync(path.join(d, 'pg_ctl')));
  if (!bin) {
    log('--store postgres: skipped — no initdb and pg_ctl found (install PostgreSQL to run this phase)');
    return undefined;
  }
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolwatch-bench-pg-'));
  // initdb refuses to run as root: the cluster belongs to the postgres user then (as .ci/run does).
  const asRoot = process.getuid?.() === 0;
  const run = (cmd, argv) =>
    execFileSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', cmd, ...argv] : argv, { stdio: 'pipe' });
  try {
    if (asRoot) execFileSync('chown', ['postgres', root]);
    run(path.join(bin, 'initdb'), ['-D', path.join(root, 'data'), '-A', 'trust', '-U', 'postgres']);
    const port = await freePort();
    run(path.join(bin, 'pg_ctl'), [
      '-D',
      path.join(root, 'data'),
      '-l',
      path.join(root, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1`,
      'start',
    ]);
    pgStop = () => {
      pgStop = undefined;
      try {
        run(path.join(bin, 'pg_ctl'), ['-D', path.join(root, 'data'), '-m', 'immediate', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(root, { recursive: true, force: true });
    };
    log(`PostgreSQL: a throwaway cluster from ${bin} in ${root}, port ${port}`);
    return `postgres://postgres@127.0.0.1:${port}/postgres`;
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    log(`--store postgres: skipped — the throwaway cluster did not start: ${String(err.stderr ?? err.message).trim()}`);
    return undefined;
  }
}

/**
 * --soak: a fixed rate for SOAK_S seconds while RSS and the V8 heap are sampled; growth is the RSS
 * at the end minus at the start of the last 15 minutes (the last 3/4 of a shorter soak), each the
 * median of the samples in a minute (or a tenth of the run) there, so one GC cycle does not decide it.
 */
async function runSoak(tw, load, rate) {
  log(`  soak: ${fmtDuration(SOAK_S)} at ${fmtInt(rate * 100)} spans/s (${Math.round(SOAK_SHARE * 100)} % of its max)`);
  const samples = [];
  const t0 = Date.now();
  let heapMb = NaN;
  const timer = setInterval(async () => {
    const r = readRss(tw.child.pid);
    try {
      const text = await (await fetch(`http://127.0.0.1:${tw.port}/metrics`)).text();
      heapMb = sumMetric(text, 'nodejs_heap_size_used_bytes').total / 1048576;
    } catch {
      // sampled again in 5 s
    }
    if (r) samples.push({ s: (Date.now() - t0) / 1000, rssMb: r.rssMb, heapMb });
  }, 5_000);
  let run;
  try {
    run = await load(tw, 'rate', { runId: 8, rate, warmup: 0, duration: SOAK_S });
  } finally {
    clearInterval(timer);
  }
  const windowS = SOAK_S >= 20 * 60 ? 15 * 60 : SOAK_S * 0.75;
  const spanS = Math.max(10, Math.min(60, windowS / 10));
  const end = samples.length ? samples[samples.length - 1].s : 0;
  const med = (xs) => {
    const v = xs.slice().sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)] : NaN;
  };
  const startRss = med(samples.filter((x) => x.s >= end - windowS && x.s <= end - windowS + spanS).map((x) => x.rssMb));
  const endRss = med(samples.filter((x) => x.s >= end - spanS).map((x) => x.rssMb));
  const endHeap = med(samples.filter((x) => x.s >= end - spanS).map((x) => x.heapMb));
  const soak = {
    run,
    rate,
    samples,
    windowLabel: SOAK_S >= 20 * 60 ? 'the last 15 min' : `the last ${fmtDuration(windowS)} (3/4 of the run)`,
    growthMb: endRss - startRss,
    endRssMb: endRss,
    endHeapMb: endHeap,
    rssPerHeap: endRss / endHeap,
  };
  log(
    `  soak: RSS ${startRss.toFixed(0)} → ${endRss.toFixed(0)} MiB over ${soak.windowLabel}; V8 heap used ${endHeap.toFixed(0)} MiB at the end`,
  );
  return soak;
}

function parseDuration(s) {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(s.trim());
  if (!m) throw new BenchError(`--soak ${s}: a duration like 20m, 90s or 1h`);
  return Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
}

function fmtDuration(s) {
  return s >= 60 ? `${+(s / 60).toFixed(1)} min` : `${Math.round(s)} s`;
}

/** `name`: its folder under tmp (a second start with the same name reuses the database); `config`: YAML appended. */
async function startToolwatch(cpus, pgUrl, { name = 'toolwatch', config = '' } = {}) {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  const configFile = path.join(dir, 'toolwatch.yaml');
  // Every setting at its default (independent of config/toolwatch.yaml edits).
  writeFileSync(
    configFile,
    (args['max-traces']
      ? `# toolwatch benchmark: every setting at its default but this\ndedupe:\n  max_traces: ${DEDUPE_CAP}\n`
      : '# toolwatch benchmark: every setting at its default\n') + config,
  );
  const port = await freePort();
  const start = startCommand();
  const nodeArgs = [
    ...start.flags,
    ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
    ...(args['node-flags'] ? String(args['node-flags']).split(' ').filter(Boolean) : []),
    ...(GC_TAIL ? [`--import=${pathToFileURL(path.join(ROOT, 'bench/gc-pauses.js')).href}`] : []),
  ];
  const child = spawnPinned(cpus.server, [process.execPath, ...nodeArgs, path.join(DIST, 'main.js')], {
    cwd: ROOT,
    env: {
      ...start.env,
      ...process.env,
      ...(GC_TAIL ? { BENCH_GC_LOG: path.join(dir, 'gc.log') } : {}),
      TOOLWATCH_CONFIG: configFile,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: pgUrl ?? path.join(dir, 'toolwatch.db'),
      LOG_LEVEL: 'warn',
    },
  });
  const stderr = collect(child.stderr, args['keep-stderr'] ? 64 << 20 : 65536);
  const stdout = collect(child.stdout, args['keep-stderr'] ? 64 << 20 : 65536);
  // The limit is generous and counted in wall time: on a shared machine the server's core can be
  // 90 % someone else's, and start-up (modules, migrations, the journal) then takes many times its
  // CPU time. A process that dies is reported at once, so a broken start is not waited for.
  const t0 = Date.now();
  const deadline = t0 + READY_S * 1000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new BenchError(
        `toolwatch exited during start-up (code ${child.exitCode ?? child.signalCode}):\n${stderr()}${stdout()}`,
      );
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new BenchError(
        `toolwatch did not become ready on port ${port} within ${READY_S} s (--ready-timeout):\n${stderr()}${stdout()}`,
      );
    await sleep(100);
  }
  const startCpu = cpuSnapshot(child.pid, cpus.server);
  log(
    `  toolwatch ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (${((startCpu.proc * 1000) / CLK_TCK / 1000).toFixed(1)} CPU s)`,
  );
  return { child, port, dir, stderr, stdout };
}

/** --gc-tail: the phase's slow requests against toolwatch's GC pauses, logged (its preload writes them four times a second). */
async function tailNote(tw, phase, name) {
  await sleep(400);
  const t = explainTail(phase.tail, phase.tailWindow, readPauses(path.join(tw.dir, 'gc.log')));
  log(describeTail(name, phase.latencyMs.p99, t));
  return t;
}

async function runLoad(cpus, opts) {
  const child = spawnPinned(cpus.load, [process.execPath, path.join(ROOT, 'bench/load.js'), JSON.stringify(opts)], {
    cwd: ROOT,
  });
  // Its one line of JSON lists every refused sequence number: thousands when a server sheds.
  const stdout = collect(child.stdout, 16 * 2 ** 20);
  const stderr = collect(child.stderr);
  const code = await new Promise((resolve) => child.once('exit', (c, s) => resolve(c ?? s)));
  if (code !== 0) throw new BenchError(`the load generator failed (exit ${code}):\n${stderr()}`);
  try {
    return JSON.parse(stdout().trim().split('\n').pop());
  } catch {
    throw new BenchError(`the load generator printed no result:\n${stdout()}\n${stderr()}`);
  }
}

function checkLoad(name, r) {
  const shed = r.statusCounts?.['503'] ?? 0;
  if (args['allow-shed'] && shed > 0 && r.non200 === shed && r.errors === 0) {
    log(`  note: ${name}: ${shed} of ${r.total.requests} batches were shed (503) and not recorded (--allow-shed)`);
  } else if (r.non200 > 0 || r.errors > 0) {
    throw new BenchError(
      `${name}: ${r.non200} of ${r.total.requests} requests did not get 200 (status counts ${JSON.stringify(r.statusCounts)}${r.firstError ? `, first error: ${r.firstError}` : ''})`,
    );
  }
  if (r.completed === 0) throw new BenchError(`${name}: no request completed in the measured window`);
}

async function stopChild(child, graceMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU ticks of a process (utime+stime) and of one core (busy, total), with the wall clock. */
function cpuSnapshot(pid, cpu) {
  const snap = { wallMs: performance.now(), proc: NaN, busy: NaN, all: NaN };
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    snap.proc = Number(f[11]) + Number(f[12]); // fields 14 and 15: utime, stime
  } catch {
    // no procfs
  }
  try {
    const line = readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`cpu${cpu ?? ''} `));
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    snap.all = v.slice(0, 8).reduce((a, b) => a + b, 0);
    snap.busy = snap.all - v[3] - v[4]; // minus idle, iowait
  } catch {
    // no procfs
  }
  return snap;
}

function cpuDelta(a, b, requests) {
  const procMs = ((b.proc - a.proc) * 1000) / CLK_TCK;
  if (!Number.isFinite(procMs)) return undefined;
  const wallMs = b.wallMs - a.wallMs;
  const coreBusy = (b.busy - a.busy) / (b.all - a.all);
  const serverShare = procMs / wallMs;
  return {
    cpuMs: procMs,
    serverShare,
    othersShare: Number.isFinite(coreBusy) ? Math.max(0, coreBusy - serverShare) : NaN,
    cpuMsPerRequest: procMs / Math.max(1, requests),
  };
}

function cpuNote(r) {
  return r.server
    ? ` (server used ${Math.round(r.server.serverShare * 100)}% of its core, other work ${Math.round(r.server.othersShare * 100)}%; ${r.server.cpuMsPerRequest.toFixed(2)} CPU ms per batch)`
    : '';
}

/** CPU time per thread name (main thread = the process name), from /proc/PID/task/*. */
function threadCpu(pid) {
  try {
    const by = new Map();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name =
        String(tid) === String(pid)
          ? 'main'
          : stat
              .slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
              .replace(/\d+$/, '')
              .trim();
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
      by.set(name, (by.get(name) ?? 0) + ms);
    }
    return [...by]
      .map(([name, ms]) => ({ name, ms }))
      .filter((t) => t.ms > 0)
      .sort((a, b) => b.ms - a.ms);
  } catch {
    return undefined;
  }
}

function readRss(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { hwmMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function firstLine(child, timeoutMs) {
  return new Promise((resolve) => {
    let buf = '';
    const timer = setTimeout(() => resolve(buf || '(timed out)'), timeoutMs);
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, nl));
      }
    });
    child.once('exit', (c) => {
      clearTimeout(timer);
      resolve(buf || `(exited with ${c})`);
    });
  });
}

/** Keeps the last `max` characters of a stream; returns a getter. */
function collect(stream, max = 65536) {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (d) => {
    text += d;
    if (text.length > max) text = text.slice(-max);
  });
  return () => text;
}

// ---------------------------------------------------------------- metrics text

/** Sums a counter over its series, and by one label when asked. */
function sumMetric(text, name, byLabel) {
  const by = {};
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!Number.isFinite(value)) continue;
    total += value;
    if (byLabel) {
      const m = new RegExp(`[{,]${byLabel}="([^"]*)"`).exec(rest);
      if (m) by[m[1]] = (by[m[1]] ?? 0) + value;
    }
  }
  return { total, by };
}

// ---------------------------------------------------------------- formatting

function table(head, rows) {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  const line = (r) =>
    r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function fmtInt(n) {
  return n === undefined || n === null ? '-' : Math.round(n).toLocaleString('en-US');
}

function fmt(n) {
  return n === undefined || n === null ? '-' : n < 10 ? n.toFixed(1) : Math.round(n).toString();
}

function num(v, d) {
  const n = Number(v);
  return v === undefined || !Number.isFinite(n) ? d : n;
}

function log(msg) {
  process.stderr.write(`bench: ${msg}\n`);
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) out[a.slice(2)] = argv[++i];
    else out[a.slice(2)] = true;
  }
  return out;
}
