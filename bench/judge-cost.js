/**
 * --judge: what enabling the judge at its defaults costs ingest. Every trace whose sampling position
 * is below the highest configured rate is a candidate whose steps are redacted and written at ingest
 * (see "What candidates cost" in docs/judge.md); at the defaults that rate is `judge.feedback_rate:
 * 0.2`, so about a fifth of the traces (`feedback_rate: 1` made every trace one). Two toolwatches are
 * started after the main one stopped, with every setting at its default but, in the second,
 * `judge.enabled: true`, a model, the local stand-in (bench/judge-stand-in.js) as its endpoint and
 * `idle: 1s` (its candidates completed while it runs, see below). Each fills its dedupe memory at
 * max, the judge-on one also runs a max phase (logged), then both get the main run's fixed rate (½
 * its max) in alternating slices — off, on, on, off, off, on — so that a machine whose speed drifts
 * over minutes (a shared VM) weighs on both alike; each slice follows 3 s at the same rate on the
 * same instance, not timed (without it an instance's first slice after the other's read up to 1.5×
 * its later ones). CPU per batch at that rate (no batch shed there,
 * so the figure is not skewed by 503s) is the median of each instance's slices; peak RSS is each
 * instance's own. The rates are read back from the instance's /api/judge, so the rows name the share
 * they measured.
 * Exported: runJudgeCost(h, opts) → the figures; judgeCostRows(r, verdict) → the table rows;
 * judgeIngestCost(opts) → the in-process figures of `node bench/judge-cost.js` (below), completing
 * the candidates included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { generateFixtures } from './fixtures.js';
import { defaultPipeline, loadBuild } from './pipeline-harness.js';
import { startJudgeStandIn } from './judge-stand-in.js';

export const TARGET_JUDGE_FACTOR = 1.3;

/** Seconds at the fixed rate before each timed slice, on the instance it times. */
const SLICE_WARMUP_S = 3;

/** The order of the fixed-rate slices: each pair alternates which instance goes first. */
const SLICE_ORDER = [
  ['off', 'on'],
  ['on', 'off'],
  ['off', 'on'],
];

/**
 * @param h helpers from run.js: startToolwatch(opts), stopChild, load, checkLoad(name, r), metrics(port),
 *   sumMetric, readRss(pid), log
 * @param {{ fillRequests: number, rate: number, rateDuration: number }} opts batches of the fill (0: no fill,
 *   as --no-fill); the main run's fixed rate (½ its max, requests/s) and the seconds of each slice
 */
export async function runJudgeCost(h, { fillRequests, rate, rateDuration }) {
  const standIn = await startJudgeStandIn({ latencyMs: 50 });
  const started = [];
  try {
    const off = await h.startToolwatch({ name: 'judge-off' });
    started.push(off);
    const on = await h.startToolwatch({
      name: 'judge-on',
      // `idle: 1s`: the candidates it writes are also completed within the phase (the judge-complete job,
      // every 10 s), as they are at steady state; at the default 5m they would complete after it ended
      // and the row would leave that work out. How many candidates, and so how much work, is the same.
      config: `judge:\n  enabled: true\n  model: bench-stand-in\n  base_url: ${standIn.url}\n  idle: 1s\n`,
    });
    started.push(on);
    const sampling = (await (await fetch(`http://127.0.0.1:${on.port}/api/judge`)).json()).sampling;
    h.log(
      `judge off (pid ${off.child.pid}) and judge on at its defaults but idle 1s (${candidatesText(sampling)}, pid ${on.child.pid})`,
    );
    const instances = { off: { tw: off, runs: [], fill: undefined }, on: { tw: on, runs: [], fill: undefined } };
    if (fillRequests > 0)
      for (const [name, x] of Object.entries(instances)) {
        x.fill = await h.load(x.tw, 'max', {
          runId: name === 'on' ? 30 : 40,
          warmup: 0,
          duration: 900,
          requests: fillRequests,
        });
        h.checkLoad(`judge ${name}, filling its dedupe memory`, x.fill);
      }
    const max = await h.load(on, 'max', { runId: 31 });
    h.checkLoad('judge on, max', max);
    instances.on.runs.push(max);
    const slices = { off: [], on: [] };
    for (const [k, pair] of SLICE_ORDER.entries())
      for (const name of pair) {
        const x = instances[name];
        // The instance sat idle while the other ran, and without this its first slice read up to 1.5×
        // its later ones (cause not established): a load of its own first, counted, not timed.
        const warm = await h.load(x.tw, 'rate', {
          runId: (name === 'on' ? 50 : 60) + k,
          rate,
          warmup: 0,
          duration: SLICE_WARMUP_S,
        });
        h.checkLoad(`judge ${name}, fixed rate, warming slice ${k + 1}`, warm);
        x.runs.push(warm);
        const r = await h.load(x.tw, 'rate', {
          runId: (name === 'on' ? 32 : 42) + k,
          rate,
          warmup: 0,
          duration: rateDuration,
        });
        h.checkLoad(`judge ${name}, fixed rate, slice ${k + 1}`, r);
        x.runs.push(r);
        slices[name].push(r);
      }
    const result = { sampling, max, slices };
    for (const [name, x] of Object.entries(instances)) {
      const text = await h.metrics(x.tw.port);
      result[name] = {
        rss: h.readRss(x.tw.child.pid),
        sent: (x.fill?.total.calls ?? 0) + x.runs.reduce((a, r) => a + r.total.calls, 0),
        counted: h.sumMetric(text, 'toolwatch_tool_calls_total').total,
        duplicates: h.sumMetric(text, 'toolwatch_duplicate_spans_total').total,
        cpuPerBatch: median(slices[name].map(cpuPerBatch)),
      };
    }
    h.log(
      `  judge on: max ${max.spansPerS.toLocaleString('en-US')} spans/s; at the fixed rate, CPU ms per batch by slice: ` +
        `off ${slices.off.map((r) => cpuPerBatch(r).toFixed(2)).join(' ')}, on ${slices.on.map((r) => cpuPerBatch(r).toFixed(2)).join(' ')}; ` +
        `peak RSS off ${result.off.rss?.hwmMb.toFixed(0)} MB, on ${result.on.rss?.hwmMb.toFixed(0)} MB`,
    );
    return result;
  } finally {
    for (const tw of started) await h.stopChild(tw.child, 15_000);
    await standIn.close();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The rates of /api/judge's `sampling` as the share of traces that are candidates, e.g. `feedback_rate 0.2: 20 % of traces candidates`. */
export function candidatesText(s) {
  const rates = [
    ['sample_rate', s.sampleRate],
    ['failed_rate', s.failedRate],
    ['feedback_rate', s.feedbackRate],
    ...Object.entries(s.serviceRates ?? {}).map(([k, v]) => [`service_rates.${k}`, v]),
  ].filter(([, v]) => typeof v === 'number');
  const [name, top] = rates.reduce((a, b) => (b[1] > a[1] ? b : a), ['none', 0]);
  // A service's rate makes candidates of that service's traces only.
  const share = `${name.startsWith('service_rates.') ? 'up to ' : ''}${Math.round(100 * top)} %`;
  return `${name} ${top}: ${share} of traces candidates`;
}

export function judgeCostProblems(r) {
  return ['off', 'on']
    .filter((name) => r[name].counted !== r[name].sent || r[name].duplicates !== 0)
    .map(
      (name) =>
        `judge ${name}: counted ${r[name].counted} calls of ${r[name].sent} sent, ${r[name].duplicates} duplicate spans`,
    );
}

/**
 * CPU per batch answered 200: a batch shed with 503 (--allow-shed on a busy machine) costs next to
 * nothing, so per request the phase that shed more would look cheaper.
 */
export function cpuPerBatch(r) {
  return r.server.cpuMs / Math.max(1, r.total.ok);
}

/** Its rows of the targets table: judge on ÷ off, CPU per batch at the fixed rate (medians of the slices) and peak RSS. */
export function judgeCostRows(r, verdict) {
  const rows = [];
  const what = `judge enabled at its defaults, idle 1s (${candidatesText(r.sampling)})`;
  if (r.slices.on.every((x) => x.server) && r.slices.off.every((x) => x.server)) {
    const f = r.on.cpuPerBatch / r.off.cpuPerBatch;
    rows.push([
      `${what}: CPU ms per batch at ${Math.round(r.slices.on[0].spansPerS).toLocaleString('en-US')} spans/s ÷ judge off (medians of ${r.slices.on.length} alternating slices)`,
      `${f.toFixed(2)}× (${r.on.cpuPerBatch.toFixed(2)} / ${r.off.cpuPerBatch.toFixed(2)})`,
      `≤ ${TARGET_JUDGE_FACTOR}×`,
      verdict(f <= TARGET_JUDGE_FACTOR),
    ]);
  }
  if (r.on.rss && r.off.rss) {
    const f = r.on.rss.hwmMb / r.off.rss.hwmMb;
    rows.push([
      `${what}: peak RSS ÷ judge off`,
      `${f.toFixed(2)}× (${r.on.rss.hwmMb.toFixed(0)} / ${r.off.rss.hwmMb.toFixed(0)} MB)`,
      `≤ ${TARGET_JUDGE_FACTOR}×`,
      verdict(f <= TARGET_JUDGE_FACTOR),
    ]);
  }
  return rows;
}

/**
 * In-process, by process CPU time: what the judge's sink adds to an ingest batch — collect (the
 * candidates' steps built, redacted and serialised; reading a step's user message parses the
 * span's input history, which nothing else reads) and its statements in a SQLite transaction (a
 * file database in WAL mode with the store's pragmas and every migration, its own SQL port), beside
 * the same number of empty transactions. Every round sends the fixture bodies once more with fresh
 * trace ids (as bench/load.js does) through the real Pipeline (default config, in-memory store) with
 * a recording sink, untimed, then hands what the pipeline gave the sink to a TrajectorySink at the
 * judge's defaults (or `feedbackRate`), timed. `grow` rounds first fill the database untimed, as a
 * busy instance's is. Returns CPU ms per 100-span batch: median collect and SQL over the rounds
 * after the first, the candidate share, and step rows and bytes per batch (the steps and the
 * offered tool lists they refer to); beside them the
 * pipeline's own CPU per batch in the same rounds (decode, normalize, check, count, its in-memory
 * store; no HTTP), so the judge's share is measured under the same load.
 */
export async function judgeIngestCost({ dist = 'dist', bodies = 200, rounds = 6, grow = 0, feedbackRate } = {}) {
  const build = await loadBuild(dist);
  const { decodeProtobuf, SqliteStore, migrateSqlite, SqliteSql, config, redactor } = build;
  const [{ TrajectorySink }, { JudgeStore }, { policyOf }, { maxProbability, inclusionProbability }] =
    await Promise.all(
      ['judge/trajectory.js', 'judge/store.js', 'judge/service.js', 'judge/sampler.js'].map(build.load),
    );
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const judge = { ...config.judge, enabled: true, ...(feedbackRate !== undefined ? { feedbackRate } : {}) };
  const { bodies: fixture, meta } = generateFixtures({ bodies, spansPerBody: 100, failRate: 0.1 });

  let handed = [];
  const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const clock = { steadyMs: 0 };
  const pipeline = defaultPipeline(build, { store, clock, sinks: [{ collect: (input) => (handed.push(input), []) }] });
  let traces = 0;
  /** What the pipeline hands its sinks for every fixture body, sent with trace ids of `round`. */
  const capture = async (round) => {
    handed = [];
    for (const [i, body] of fixture.entries()) {
      const buf = Buffer.from(body);
      for (const off of meta[i].traceIdOffsets) {
        buf.writeUInt32BE(round >>> 0, off + 8);
        buf.writeUInt32BE((i + 1) >>> 0, off + 12);
      }
      const decoded = decodeProtobuf(buf);
      if (!decoded.ok) throw new Error(`a fixture body did not decode: ${decoded.message}`);
      await pipeline.ingestSpans(decoded.spans);
      clock.steadyMs += 1000;
      if ((i + 1) % 50 === 0) await pipeline.settle(clock.steadyMs);
    }
    for (const input of handed) traces += new Set(input.facts.map((f) => f.traceId)).size;
    return handed;
  };

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'toolwatch-judge-cost-'));
  const db = new Database(path.join(tmp, 'judge.db'));
  try {
    // The store's pragmas (src/store/sqlite.ts).
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -4000');
    migrateSqlite(db);
    const port = new SqliteSql(db);
    const judgeStore = new JudgeStore(port);
    const policy = policyOf(judge);
    const sink = new TrajectorySink({
      project: judge.project,
      policy,
      store: judgeStore,
      now: Date.now,
      redactor,
    });
    const write = (extensions) => {
      db.exec('BEGIN IMMEDIATE');
      for (const x of extensions) x(port.batchTx);
      db.exec('COMMIT');
    };
    for (let r = 0; r < grow; r++) for (const input of await capture(1_000_000 + r)) write(sink.collect(input));
    // The steps' bytes, and the offered tool lists they refer to (stored once each since judge_offered; absent before).
    const hasOffered = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'judge_offered'").get() !== undefined;
    const stored = () => {
      const s = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(payload)), 0) AS b FROM judge_steps').get();
      const o = hasOffered ? db.prepare('SELECT COALESCE(SUM(LENGTH(tools)), 0) AS b FROM judge_offered').get().b : 0;
      return { n: s.n, b: s.b + o };
    };
    const written = { n: 0, b: 0 };
    const per = [];
    for (let r = 0; r < rounds; r++) {
      const tc = cpu();
      const inputs = await capture(r + 1);
      const pipelineMs = cpu() - tc;
      const w0 = stored();
      const t0 = cpu();
      const extensions = inputs.map((input) => sink.collect(input));
      const t1 = cpu();
      for (const x of extensions) write(x);
      const t2 = cpu();
      for (const _ of extensions) write([]);
      const t3 = cpu();
      const w1 = stored();
      written.n += w1.n - w0.n;
      written.b += w1.b - w0.b;
      const t3c = cpu();
      // Completing the round's candidates as the judge-complete job does once they are idle (an hour
      // on here): sampled ones queued, the rest dropped and their steps deleted.
      await judgeStore.trajectories.finalize(Date.now() + 3_600_000, 1000, (service, failed, negative) =>
        inclusionProbability(policy, service, failed, negative),
      );
      const t4 = cpu();
      per.push({
        pipeline: pipelineMs / inputs.length,
        collect: (t1 - t0) / inputs.length,
        sql: (t2 - t1 - (t3 - t2)) / inputs.length,
        complete: (t4 - t3c) / inputs.length,
      });
    }
    const candidates = db.prepare('SELECT COUNT(*) AS n FROM judge_trajectories').get().n;
    const timed = per.length > 1 ? per.slice(1) : per; // the first round warms the JIT and the statement cache
    const batches = rounds * fixture.length;
    return {
      feedbackRate: judge.feedbackRate,
      maxRate: maxProbability(policyOf(judge)),
      candidateShare: candidates / Math.max(1, traces),
      cpuMsPerBatch: {
        pipeline: median(timed.map((x) => x.pipeline)),
        collect: median(timed.map((x) => x.collect)),
        sql: median(timed.map((x) => x.sql)),
        complete: median(timed.map((x) => x.complete)),
        rounds: timed,
      },
      stepRowsPerBatch: written.n / batches,
      payloadBytesPerBatch: written.b / batches,
    };
  } finally {
    db.close();
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values: a } = parseArgs({
    options: {
      dist: { type: 'string', default: 'dist' },
      rounds: { type: 'string', default: '6' },
      bodies: { type: 'string', default: '200' },
      grow: { type: 'string', default: '0' },
      'feedback-rate': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const r = await judgeIngestCost({
    dist: a.dist,
    rounds: Number(a.rounds),
    bodies: Number(a.bodies),
    grow: Number(a.grow),
    ...(a['feedback-rate'] !== undefined ? { feedbackRate: Number(a['feedback-rate']) } : {}),
  });
  if (a.json) process.stdout.write(`${JSON.stringify(r)}\n`);
  else {
    const f = (x) => x.toFixed(3);
    const c = r.cpuMsPerBatch;
    process.stdout.write(
      `judge-cost (${a.dist}), feedback_rate ${r.feedbackRate} (highest rate ${r.maxRate}, candidates ${(100 * r.candidateShare).toFixed(1)} % of traces): ` +
        `${r.stepRowsPerBatch.toFixed(1)} step rows, ${(r.payloadBytesPerBatch / 1024).toFixed(1)} KiB per batch\n` +
        `  CPU ms per batch: collect ${f(c.collect)} [${c.rounds.map((x) => f(x.collect)).join(' ')}], ` +
        `SQL ${f(c.sql)} [${c.rounds.map((x) => f(x.sql)).join(' ')}], total ${f(c.collect + c.sql)}; ` +
        `the pipeline itself (judge off, no HTTP, in-memory store) ${f(c.pipeline)}: ×${((c.pipeline + c.collect + c.sql) / c.pipeline).toFixed(2)}\n` +
        `  and later, completing the candidates (queued or dropped, their steps deleted): ${f(c.complete)} [${c.rounds.map((x) => f(x.complete)).join(' ')}]; ` +
        `with it ×${((c.pipeline + c.collect + c.sql + c.complete) / c.pipeline).toFixed(2)}\n`,
    );
  }
}
