/**
 * What the problems work (src/problems/) adds to an ingest batch, in-process, timed by process CPU
 * time. The bench's fixture bodies (about 10 % failing calls, and their failed tool executions) go
 * once through the real Pipeline (default config, an in-memory SQLite store) with a recording
 * CountedCallSink in front of the ProblemRecorder, so the inputs are exactly what the pipeline hands
 * the problems sink: the checked calls with their label values and span facts per batch, the released
 * executions per settle round, the completed trajectories with their repair turns. Every round then
 * replays those hand-offs through a fresh ProblemRecorder — signatures (signature.ts), the per-problem
 * deltas and kept examples (record.ts), the repair sums (cost.ts) — and runs the statements they give
 * inside a SQLite transaction (an in-memory database with every migration, the store's own SQL port),
 * beside the same loop with empty transactions. Their difference is what problems add per batch;
 * decode, normalize, check, count and the transaction itself are the pipeline's with or without them.
 *
 * Settle rounds (failed executions, completed trajectories) run every `--settle-every` bodies: the
 * server settles every 100 ms at the default graces, so `npm run bench` passes the max phase's batches
 * per 100 ms; the default, 1, settles after every body (an upper bound: fewer executions per statement).
 *
 * Usage: node bench/problems-cost.js [--dist DIR] [--rounds N] [--bodies N] [--settle-every N] [--only KIND]
 *   [--at-cap] [--json]
 * (--only extension|executions|trajectories: replay one kind of hand-off, to see where the time goes;
 * --at-cap: every service of the fixtures starts the replay with problems.max_per_service problems of
 * its own already stored, so each failure goes to its service's `_other` row — the path whose problem
 * statement looks the row up and counts the service's problems)
 * `npm run bench` runs it pinned to toolwatch's core after the max phase and divides by toolwatch's
 * CPU ms per batch of the same run (the target: ≤ 5 %).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { generateFixtures } from './fixtures.js';
import { defaultPipeline, loadBuild } from './pipeline-harness.js';

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * CPU ms per 100-span batch: `work` (signatures, deltas, examples, repair sums), `sql` (their
 * statements), `total`; with what one batch held on average.
 */
export async function problemsCost({
  dist = 'dist',
  bodies = 200,
  rounds = 20,
  settleEvery = 1,
  only,
  atCap = false,
} = {}) {
  const build = await loadBuild(dist);
  const { decodeProtobuf, SqliteStore, migrateSqlite, SqliteSql, config, redactor } = build;
  const { ProblemRecorder } = await build.load('problems/record.js');
  const recorderDeps = (sql) => ({
    sql,
    redactor,
    maxPerService: config.problems.maxPerService,
    latestExampleEveryMs: config.problems.latestExampleEveryMs,
  });

  // ---- capture: what the real pipeline hands the problems sink, batch by batch
  const { bodies: fixtureBodies } = generateFixtures({ bodies, spansPerBody: 100, failRate: 0.1 });
  const store = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const inner = new ProblemRecorder(recorderDeps(store.sql));
  const handed = [];
  const recording = {
    extension: (calls, labels, facts) => (
      handed.push(['extension', calls, labels, facts]), inner.extension(calls, labels, facts)
    ),
    executions: (released) => (handed.push(['executions', released]), inner.executions(released)),
    trajectories: (done) => (handed.push(['trajectories', done]), inner.trajectories(done)),
  };
  /** The real pipeline at the default config over an in-memory store, `counted` its problems sink. */
  const makePipeline = (store, counted) => {
    const clock = { steadyMs: 0 };
    const pipeline = defaultPipeline(build, { store, clock, ...(counted ? { counted } : {}) });
    let n = 0;
    /** One body, settling every settleEvery bodies. */
    const ingest = async (body) => {
      const decoded = decodeProtobuf(body);
      if (!decoded.ok) throw new Error(`a fixture body did not decode: ${decoded.message}`);
      await pipeline.ingestSpans(decoded.spans);
      clock.steadyMs += 1000;
      if (++n % settleEvery === 0) await pipeline.settle(clock.steadyMs);
      return decoded.spans.length;
    };
    return { pipeline, ingest, clock };
  };
  const capture = makePipeline(store, recording);
  let spans = 0;
  for (const body of fixtureBodies) spans += await capture.ingest(body);
  await capture.pipeline.drain(capture.clock.steadyMs + 3_600_000);
  await store.close();

  const failed = { calls: 0, executions: 0, repairs: 0 };
  for (const [kind, a] of handed) {
    if (kind === 'extension') failed.calls += a.filter((c) => c.outcome.outcome !== 'valid').length;
    else if (kind === 'executions') failed.executions += a.filter((e) => e.status !== 'ok').length;
    else for (const t of a) failed.repairs += t.repairs?.length ?? 0;
  }
  if (failed.calls === 0 || failed.executions === 0 || failed.repairs === 0)
    throw new Error(`the fixtures gave the problems sink nothing to do: ${JSON.stringify(failed)}`);

  // ---- replay, timed
  if (only) handed.splice(0, handed.length, ...handed.filter(([kind]) => kind === only));
  const db = new Database(':memory:');
  migrateSqlite(db);
  const port = new SqliteSql(db);
  if (atCap) {
    // Problems of other signatures fill each service to its cap before the replay.
    const services = new Set();
    // As the problems are filed: under the calls' label values (a capped service is `_other`).
    for (const [kind, , labels] of handed) if (kind === 'extension') for (const l of labels) services.add(l.service);
    const seed = db.prepare(
      `INSERT INTO problems (service, id, outcome, tool, canonical, parts, first_seen_ms, last_seen_ms, occurrences,
         status, status_ms, recorded_ms) VALUES (?, ?, 'SchemaMismatch', 'seed', ?, '[]', 0, 0, 1, 'open', 0, 0)`,
    );
    for (const service of services)
      for (let i = 0; i < config.problems.maxPerService; i++) seed.run(service, `seed-${i}`, `seed-${i}`);
  }
  const recorder = new ProblemRecorder(recorderDeps(port));
  // Each round's sightings come after the previous round's, as time moves on in a running server
  // (replayed at the same times, every latest example after the first round would be older than the
  // one written, and left out): the failed calls' and executions' times move by the span they cover.
  const times = [];
  for (const [kind, a] of handed)
    if (kind === 'extension') for (const c of a) times.push(c);
    else if (kind === 'executions') for (const e of a) times.push(e);
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const x of times) (lo = Math.min(lo, x.timeMs)), (hi = Math.max(hi, x.timeMs));
  const shift = Math.ceil(hi - lo) + 1;
  const moveOn = () => {
    for (const x of times) x.timeMs += shift;
  };
  /** One pass over every hand-off, each in its own transaction; the problems' statements only when withSql. */
  const round = (withWork, withSql) => {
    for (const [kind, a, b, c] of handed) {
      const ext = withWork
        ? kind === 'extension'
          ? recorder.extension(a, b, c)
          : kind === 'executions'
            ? recorder.executions(a)
            : recorder.trajectories(a)
        : undefined;
      db.exec('BEGIN IMMEDIATE');
      if (withSql && ext) ext(port.batchTx);
      db.exec('COMMIT');
      // What the group commit tells an extension once its transaction committed (store/sql.ts); told
      // without the SQL too, so the recorder leaves out and merges in both loops what a server's would.
      ext?.committed?.();
    }
  };
  /**
   * CPU ms of n rounds, each after the times moved on; between rounds (not timed) the event loop
   * turns, as it does between a server's batches, so what the recorder asked after a commit (whether
   * a problem's own row exists: problems/write.ts) is answered.
   */
  const timed = async (n, withWork, withSql) => {
    let ms = 0;
    for (let i = 0; i < n; i++) {
      moveOn();
      const t0 = cpu();
      round(withWork, withSql);
      ms += cpu() - t0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return ms;
  };
  // Warm-up: the JIT, the statement cache and the problem rows (a steady state updates existing rows).
  await timed(2, true, true);
  await timed(1, true, true);
  // Alternating quarters, so drift in the machine's load falls on all three alike.
  let emptyMs = 0;
  let workMs = 0;
  let bothMs = 0;
  const quarter = Math.max(1, Math.round(rounds / 4));
  for (let i = 0; i < 4; i++) {
    emptyMs += await timed(quarter, false, false);
    workMs += await timed(quarter, true, false);
    bothMs += await timed(quarter, true, true);
  }
  db.close();

  const batches = 4 * quarter * fixtureBodies.length;
  const per = (ms) => Math.max(0, ms) / batches;
  const perBody = (n) => n / fixtureBodies.length;
  return {
    bodies: fixtureBodies.length,
    rounds: 4 * quarter,
    perBatch: {
      spans: perBody(spans),
      failedCalls: perBody(failed.calls),
      failedExecutions: perBody(failed.executions),
      repairs: perBody(failed.repairs),
    },
    cpuMsPerBatch: { work: per(workMs - emptyMs), sql: per(bothMs - workMs), total: per(bothMs - emptyMs) },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values: args } = parseArgs({
    options: {
      dist: { type: 'string', default: 'dist' },
      rounds: { type: 'string', default: '20' },
      bodies: { type: 'string', default: '200' },
      'settle-every': { type: 'string', default: '1' },
      only: { type: 'string' },
      'at-cap': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const r = await problemsCost({
    dist: args.dist,
    bodies: Number(args.bodies),
    rounds: Number(args.rounds),
    settleEvery: Number(args['settle-every']),
    ...(args.only ? { only: args.only } : {}),
    atCap: args['at-cap'],
  });
  if (args.json) process.stdout.write(`${JSON.stringify(r)}\n`);
  else {
    const f = (x) => x.toFixed(4);
    const b = r.perBatch;
    process.stdout.write(
      `problems-cost (${args.dist}): ${r.bodies} bodies × ${r.rounds} rounds; per batch ${b.spans.toFixed(0)} spans, ` +
        `${b.failedCalls.toFixed(1)} failed calls, ${b.failedExecutions.toFixed(1)} failed executions, ${b.repairs.toFixed(1)} repair turns\n` +
        `  CPU ms per batch: signatures and deltas ${f(r.cpuMsPerBatch.work)}, SQL ${f(r.cpuMsPerBatch.sql)}, total ${f(r.cpuMsPerBatch.total)}\n`,
    );
  }
}
