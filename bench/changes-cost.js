/**
 * What the changes observation (src/changes/) costs per ingest batch, in-process: the bench's
 * fixture bodies decoded and read once, then every round runs, per body, what the changes sink adds
 * to a batch — the server's changes sink (src/changes/sink.ts) collecting over the batch's facts and
 * counted calls, and its statements inside a SQLite transaction (an in-memory database with every
 * migration, the store's own SQL port), then what it learns once that committed — timed by process
 * CPU time, less the same transactions empty (the batch's own transaction is the pipeline's, changes
 * or not: what they add is their statements). The calls are the bodies' proposals, counted as the pipeline would
 * (one per call, at the span's time; outcomes do not change the cost). With --group N the batches
 * commit N to a transaction, as SQLite's group commit writes the batches queued behind the one in
 * flight: the mergeable rows (definition versions, per-minute counts) summed for the group by the
 * store's own code (src/store/group-extensions.ts; a build without it writes each batch's own).
 *
 * The definition hashing is also timed on its own: every model span's offered definitions turned into
 * their versions and tool set through the observation's own cache (src/changes/offers.ts offerOf:
 * the SHA-256 of a definition's canonical form is taken once per distinct definitions value, then
 * found by the list's identity) — as if each span began a run, where observe asks once per run: at
 * most what observe pays for it.
 *
 * Usage: node bench/changes-cost.js [--dist DIR] [--rounds N] [--bodies N] [--group N]
 * Prints CPU ms per 100-span batch: observe alone, the SQL alone, both, and the definition hashing —
 * compare two builds with --dist. `npm run bench` (bench/run.js) imports measureChangesCost() and
 * prints the total and the hashing each as a share of its toolwatch CPU ms per batch (target ≤ 2 %).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { generateFixtures } from './fixtures.js';

/**
 * CPU ms per batch of the changes work over `bodies` fixture bodies (generateFixtures with
 * `fixtures`) × `rounds` passes, from the build in `dist`: { observeMs, sqlMs, totalMs, hashingMs }
 * per batch (hashingMs is part of observeMs).
 */
export async function measureChangesCost({ dist, rounds = 40, bodies: bodyCount = 200, fixtures = {}, group = 1 }) {
  const load = (p) => import(pathToFileURL(path.join(dist, p)).href);
  const { decodeProtobuf } = await load('sources/otlp/decode-protobuf.js');
  const { builtinDialects } = await load('normalize/dialects.js');
  const { changesSink } = await load('changes/sink.js');
  const { offerOf } = await load('changes/offers.js');
  const { migrateSqlite } = await load('store/sqlite.js');
  const { SqliteSql } = await load('store/sqlite-sql.js');
  const grouped = existsSync(path.join(dist, 'store/group-extensions.js'))
    ? await load('store/group-extensions.js')
    : undefined;

  // The bench's own bodies when it passes its fixture options (spansPerBody, failRate).
  const { bodies } = generateFixtures({ ...fixtures, bodies: bodyCount });
  const dialects = builtinDialects();
  const batches = bodies.map((body) => {
    const decoded = decodeProtobuf(body);
    if (!decoded.ok) throw new Error(`a fixture body did not decode: ${decoded.message}`);
    const facts = dialects.normalizeSpans(decoded.spans);
    const calls = facts.flatMap((f) =>
      f.proposals.map((p) => ({
        source: 'otlp',
        traceId: f.traceId,
        spanId: f.spanId,
        service: f.service,
        model: f.model ?? '',
        name: p.name,
        args: p.args,
        timeMs: f.startTimeMs,
        outcome: { outcome: 'valid' },
        fromExecution: false,
      })),
    );
    return { facts, calls };
  });
  const spans = batches.reduce((n, b) => n + b.facts.length, 0);
  /** Per batch, its model spans that offered definitions: what the hashing is timed over. */
  const offering = batches.map((b) => b.facts.filter((f) => f.role === 'model' && f.offered?.length));
  if (spans === 0) throw new Error('no span was read from the fixtures: the decode result shape changed');

  const db = new Database(':memory:');
  migrateSqlite(db);
  const port = new SqliteSql(db);
  const limits = { maxName: 200, maxToolsPerRequest: 256 };
  // The server's own sink (src/services.ts), over the store's port; a build from before the sink
  // took the port (no changes/committed.js) took the dialect.
  const withPort = existsSync(path.join(dist, 'changes/committed.js'));
  const sink = changesSink(withPort ? port : 'sqlite', limits);
  // Its start-up read of the store (SQLite answers at once) before the first batch, as in the server.
  await new Promise((resolve) => setImmediate(resolve));
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };

  /**
   * One pass over the batches: what the sink collects per batch (the observation, the extension), and
   * when withSql its statements in a transaction per batch and what it learns once that committed.
   */
  function round(withSql) {
    for (let i = 0; i < batches.length; i += group) {
      const written = [];
      for (const b of batches.slice(i, i + group))
        written.push({ extensions: sink.collect({ source: 'otlp', facts: b.facts, calls: b.calls }) });
      if (!withSql) continue;
      db.exec('BEGIN IMMEDIATE');
      // As src/store/sqlite.ts commits a group: the mergeable rows summed first, then each batch's rest.
      const merged = grouped !== undefined && written.length > 1;
      if (merged) grouped.writeMergedRows(port.batchTx, written);
      for (const w of written)
        if (grouped) grouped.runExtensions(port.batchTx, w.extensions, merged);
        else for (const ext of w.extensions) ext(port.batchTx);
      db.exec('COMMIT');
      for (const w of written) for (const ext of w.extensions) ext.committed?.();
    }
  }

  /**
   * The same transactions empty: the server's batch commits in its transaction with or without the
   * changes, so BEGIN and COMMIT are the pipeline's cost, not the changes' (subtracted below).
   */
  function emptyTransactions() {
    for (let i = 0; i < batches.length; i += group) {
      db.exec('BEGIN IMMEDIATE');
      db.exec('COMMIT');
    }
  }

  /** CPU time of `n` passes, read once around them (reading it per batch would cost more than observe). */
  function timed(n, withSql) {
    const t0 = cpu();
    for (let i = 0; i < n; i++) round(withSql);
    return cpu() - t0;
  }

  /** Each model span's definitions to their versions and tool set, through the observation's cache. */
  function hashing() {
    for (const spansOf of offering) for (const f of spansOf) offerOf(f.service, f.offered, limits.maxName);
  }

  function timedHashing(n) {
    const t0 = cpu();
    for (let i = 0; i < n; i++) hashing();
    return cpu() - t0;
  }

  function timedEmpty(n) {
    const t0 = cpu();
    for (let i = 0; i < n; i++) emptyTransactions();
    return cpu() - t0;
  }

  try {
    // Warm-up: the caches (definition versions, tool sets, prompts) and the JIT, as in a steady state.
    timed(3, true);
    // Alternating quarters, so drift in the machine's load falls on both alike.
    let observeMs = 0;
    let withTxMs = 0;
    let emptyTxMs = 0;
    let hashingMs = 0;
    for (let i = 0; i < 4; i++) {
      observeMs += timed(rounds / 4, false);
      withTxMs += timed(rounds / 4, true);
      emptyTxMs += timedEmpty(rounds / 4);
      hashingMs += timedHashing(rounds / 4);
    }
    const bothMs = withTxMs - emptyTxMs;
    const n = rounds * batches.length;
    return {
      bodies: batches.length,
      rounds,
      group,
      spansPerBatch: spans / batches.length,
      callsPerBatch: batches.reduce((k, b) => k + b.calls.length, 0) / batches.length,
      observeMs: observeMs / n,
      sqlMs: (bothMs - observeMs) / n,
      totalMs: bothMs / n,
      /** The definition hashing (cached per distinct definitions value), part of observeMs. */
      hashingMs: hashingMs / n,
      /** Model spans per batch that offered definitions (each one hashed, or found, in hashingMs). */
      offeringSpansPerBatch: offering.reduce((k, o) => k + o.length, 0) / batches.length,
      /** BEGIN + COMMIT per batch (one per group of `group`), left out of sqlMs and totalMs. */
      transactionMs: emptyTxMs / n,
    };
  } finally {
    db.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values: args } = parseArgs({
    options: {
      dist: { type: 'string', default: 'dist' },
      rounds: { type: 'string', default: '40' },
      bodies: { type: 'string', default: '200' },
      group: { type: 'string', default: '1' },
    },
  });
  const dist = path.resolve(args.dist);
  const r = await measureChangesCost({
    dist,
    rounds: Number(args.rounds),
    bodies: Number(args.bodies),
    group: Number(args.group),
  });
  const per = (ms) => ms.toFixed(4);
  process.stdout.write(
    `changes-cost (${path.relative(process.cwd(), dist) || dist}): ${r.bodies} bodies × ${r.rounds} rounds, ` +
      `${r.spansPerBatch.toFixed(0)} spans and ${r.callsPerBatch.toFixed(1)} calls per batch, ${r.group} per transaction\n` +
      `  CPU ms per batch: observe ${per(r.observeMs)}, SQL ${per(r.sqlMs)}, total ${per(r.totalMs)}` +
      ` (an empty transaction per batch, left out: ${per(r.transactionMs)})\n` +
      `  definition hashing ${per(r.hashingMs)} (${r.offeringSpansPerBatch.toFixed(1)} model spans offering definitions per batch, part of observe)\n`,
  );
}
