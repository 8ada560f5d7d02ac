/**
 * What the changes observation (src/changes/) costs per ingest batch, in-process: the bench's
 * fixture bodies decoded and read once, then every round runs, per body, what the changes sink adds
 * to a batch — observeBatch over the batch's facts and counted calls, and its statements inside a
 * SQLite transaction (an in-memory database with every migration, the store's own SQL port) —
 * timed by process CPU time. The calls are the bodies' proposals, counted as the pipeline would
 * (one per call, at the span's time; outcomes do not change the cost).
 *
 * Usage: node bench/changes-cost.js [--dist DIR] [--rounds N] [--bodies N]
 * Prints CPU ms per 100-span batch: observe alone, the SQL alone and both — compare two builds with
 * --dist, and divide by the bench's toolwatch CPU ms per batch (`npm run bench`) for the share.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { generateFixtures } from './fixtures.js';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    rounds: { type: 'string', default: '40' },
    bodies: { type: 'string', default: '200' },
  },
});
const dist = path.resolve(args.dist);
const load = (p) => import(pathToFileURL(path.join(dist, p)).href);

const { decodeProtobuf } = await load('sources/otlp/decode-protobuf.js');
const { builtinDialects } = await load('normalize/dialects.js');
const { observeBatch } = await load('changes/observe.js');
const { changesExtension } = await load('changes/store.js');
const { migrateSqlite } = await load('store/sqlite.js');
const { SqliteSql } = await load('store/sqlite-sql.js');

const { bodies } = generateFixtures({ bodies: Number(args.bodies) });
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
if (spans === 0) throw new Error('no span was read from the fixtures: the decode result shape changed');

const db = new Database(':memory:');
migrateSqlite(db);
const port = new SqliteSql(db);
const limits = { maxName: 200, maxToolsPerRequest: 256 };
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** One pass over the batches: observe (and its SQL in a transaction per batch, when withSql). */
function round(withSql) {
  for (const b of batches) {
    const ext = changesExtension('sqlite', observeBatch(b.facts, b.calls, limits));
    if (withSql && ext) {
      db.exec('BEGIN IMMEDIATE');
      ext(port.batchTx);
      db.exec('COMMIT');
    }
  }
}

/** CPU time of `rounds` passes, read once around them (reading it per batch would cost more than observe). */
function timed(rounds, withSql) {
  const t0 = cpu();
  for (let i = 0; i < rounds; i++) round(withSql);
  return cpu() - t0;
}

// Warm-up: the caches (definition versions, tool sets, prompts) and the JIT, as in a steady state.
timed(3, true);
const rounds = Number(args.rounds);
// Alternating halves, so drift in the machine's load falls on both alike.
let observeMs = 0;
let bothMs = 0;
for (let i = 0; i < 4; i++) {
  observeMs += timed(rounds / 4, false);
  bothMs += timed(rounds / 4, true);
}
const sqlMs = bothMs - observeMs;
const n = rounds * batches.length;
const per = (ms) => (ms / n).toFixed(4);
process.stdout.write(
  `changes-cost (${path.relative(process.cwd(), dist) || dist}): ${batches.length} bodies × ${rounds} rounds, ` +
    `${(spans / batches.length).toFixed(0)} spans and ${(batches.reduce((k, b) => k + b.calls.length, 0) / batches.length).toFixed(1)} calls per batch\n` +
    `  CPU ms per batch: observe ${per(observeMs)}, SQL ${per(sqlMs)}, total ${per(observeMs + sqlMs)}\n`,
);
