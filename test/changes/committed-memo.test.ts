/**
 * The process's memo of committed change state (src/changes/committed.ts): the sightings it leaves
 * out are exactly those that would have moved nothing. Differential: one SQLite database written
 * through the server's sink (memo on), one through the extension without a memo, the same batches
 * in the same transactions — alone, several in one group, a group rolled back and retried batch by
 * batch, a batch rolled back for good, a restart (a new sink reading the state) — and afterwards
 * every change table equal. And in the steady state the sink writes no sighting at all.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { observeBatch } from '../../src/changes/observe.js';
import { changesSink, DEFAULT_OBSERVE_LIMITS } from '../../src/changes/sink.js';
import { changesExtension } from '../../src/changes/store.js';
import type { CheckedCall, SpanFacts, ToolDef } from '../../src/model.js';
import type { BatchSink } from '../../src/pipeline/pipeline.js';
import { SqliteSql } from '../../src/store/sqlite-sql.js';
import { migrateSqlite } from '../../src/store/sqlite.js';
import type { BatchExtension, BatchTx } from '../../src/store/sql.js';
import { seeded } from '../../src/util/seeded.js';

const frozen = (d: ToolDef) => Object.freeze(d);
const LISTS: readonly (readonly ToolDef[])[] = [
  [frozen({ name: 'lookup', description: 'Look up.', parameters: { type: 'object' } }), frozen({ name: 'refund' })],
  [frozen({ name: 'lookup', description: 'Look it up.', parameters: { type: 'object' } }), frozen({ name: 'refund' })],
  [frozen({ name: 'lookup', description: 'Look up.', parameters: { type: 'object' } })],
];

const rng = seeded;

let spanNo = 0;
function batchOf(r: () => number, t0: number, state: { list: number; model: number; provider: number }) {
  const facts: SpanFacts[] = [];
  const calls: CheckedCall[] = [];
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    // Mostly steady; now and then a switch, and now and then a late span (an older time).
    if (r() < 0.02) state.list = Math.floor(r() * LISTS.length);
    if (r() < 0.02) state.model = 1 - state.model;
    if (r() < 0.02) state.provider = 1 - state.provider;
    const t = t0 + i * 10 - (r() < 0.03 ? Math.floor(r() * 20_000) : 0);
    spanNo++;
    const f: SpanFacts = {
      dialect: 'genai',
      traceId: `t${spanNo}`,
      spanId: `s${spanNo}`,
      parentSpanId: '',
      service: r() < 0.8 ? 'shop' : 'desk',
      startTimeMs: t,
      endTimeMs: t + 5,
      role: 'model',
      model: ['gpt-4o', 'gpt-4.1'][state.model]!,
      provider: ['openai', 'azure'][state.provider]!,
      offered: [...LISTS[state.list]!],
      promptVersion: r() < 0.01 ? 'p2' : 'p1',
      proposals: [],
      replays: [],
    };
    facts.push(f);
    calls.push({
      source: 'otlp',
      traceId: f.traceId,
      spanId: f.spanId,
      service: f.service,
      model: f.model!,
      name: r() < 0.5 ? 'lookup' : 'refund',
      args: { kind: 'none' },
      timeMs: t,
      outcome: { outcome: 'valid' },
      fromExecution: false,
    });
  }
  return { facts, calls };
}

class Db {
  readonly db = new Database(':memory:');
  readonly port = new SqliteSql(this.db);
  constructor() {
    migrateSqlite(this.db);
  }
  /** Runs the extensions in one transaction; committed() in order when it commits. */
  tx(exts: BatchExtension[], commit: boolean, tx: BatchTx = this.port.batchTx) {
    this.db.exec('BEGIN IMMEDIATE');
    for (const x of exts) x(tx);
    this.db.exec(commit ? 'COMMIT' : 'ROLLBACK');
    if (commit) for (const x of exts) x.committed?.();
  }
  tables() {
    const q = (s: string) => this.db.prepare(s).all();
    return {
      events: q(
        'SELECT time_ms, service, kind, tool, from_value, from_since, to_value FROM change_events ORDER BY time_ms, service, kind, tool, id',
      ),
      state: q('SELECT * FROM change_state ORDER BY service, kind, key'),
      sets: q('SELECT * FROM service_tool_sets ORDER BY service, version'),
      versions: q('SELECT * FROM tool_versions ORDER BY service, tool, version'),
      definitions: q('SELECT * FROM tool_definitions ORDER BY service, tool, version'),
      minutes: q('SELECT * FROM version_minutes ORDER BY minute, service, tool, version, provider, outcome'),
    };
  }
}

const one = (exts: readonly BatchExtension[]) => exts[0]!;

describe('the committed-state memo leaves out exactly the sightings that move nothing', () => {
  it.each([1, 2, 3, 4])('random batches, groups, rollbacks and restarts (seed %i): the same tables', async (seed) => {
    const r = rng(seed);
    const withMemo = new Db();
    const without = new Db();
    let t = 1_700_000_000_000;
    // The clock the stored-definitions memo reads follows the spans (a second a batch).
    const now = () => t;
    let sink: BatchSink = changesSink(withMemo.port, DEFAULT_OBSERVE_LIMITS, now);
    await new Promise((res) => setImmediate(res));
    const state = { list: 0, model: 0, provider: 0 };
    /** Sighting and definition statements run with the memos and without them. */
    const sightings = { mine: 0, theirs: 0 };
    const definitions = { mine: 0, theirs: 0 };
    const counter = (db: Db, k: keyof typeof sightings): BatchTx => ({
      run: (sql, params) => {
        if (sql.includes('INTO change_state')) sightings[k]++;
        if (sql.includes('INTO tool_definitions')) definitions[k]++;
        db.port.batchTx.run(sql, params);
      },
    });
    const counting = counter(withMemo, 'mine');
    const plain = counter(without, 'theirs');
    for (let step = 0; step < 400; step++) {
      if (step === 200) {
        // A restart: a new sink (its memo read from the store).
        sink = changesSink(withMemo.port, DEFAULT_OBSERVE_LIMITS, now);
        await new Promise((res) => setImmediate(res));
      }
      // Two hours with no traffic: every definition is written again (stored-definitions.ts).
      if (step === 300) t += 7_200_000;
      const size = r() < 0.2 ? 2 + Math.floor(r() * 3) : 1;
      const batches = Array.from({ length: size }, () => {
        t += 1_000;
        return batchOf(r, t, state);
      });
      const mine = batches.map((b) => one(sink.collect({ source: 'otlp', ...b })));
      const theirs = batches.map(
        (b) => changesExtension('sqlite', observeBatch(b.facts, b.calls, DEFAULT_OBSERVE_LIMITS))!,
      );
      const fate = r();
      if (fate < 0.1) {
        // Rolled back for good.
        withMemo.tx(mine, false, counting);
        without.tx(theirs, false, plain);
      } else if (fate < 0.25 && size > 1) {
        // The group fails, then each batch alone; one of them fails again.
        withMemo.tx(mine, false, counting);
        without.tx(theirs, false, plain);
        const bad = Math.floor(r() * size);
        for (let i = 0; i < size; i++) {
          withMemo.tx([mine[i]!], i !== bad, counting);
          without.tx([theirs[i]!], i !== bad, plain);
        }
      } else {
        withMemo.tx(mine, true, counting);
        without.tx(theirs, true, plain);
      }
    }
    // The memos were at work: most batches wrote no sighting and no definition.
    expect(sightings.mine).toBeLessThan(sightings.theirs / 2);
    expect(definitions.mine).toBeLessThan(definitions.theirs / 4);
    const a = withMemo.tables();
    const b = without.tables();
    expect(b.events.length).toBeGreaterThan(5);
    expect(a).toEqual(b);
  });

  it('steady state: a batch of unchanged values writes no sighting, no tool set and no definition', async () => {
    const db = new Db();
    // The clock a minute after the spans: their definitions, once committed, are known stored.
    const now = () => 1_700_000_060_000;
    const sink = changesSink(db.port, DEFAULT_OBSERVE_LIMITS, now);
    await new Promise((res) => setImmediate(res));
    const statements: string[] = [];
    const recording: BatchTx = {
      run: (sql, params) => {
        statements.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
        db.port.batchTx.run(sql, params);
      },
    };
    // One service, one value of each kind, no late span: nothing but the first batch moves anything.
    const made = batchOf(rng(7), 1_700_000_000_000, { list: 0, model: 0, provider: 0 });
    const first = {
      calls: made.calls.map((c) => ({ ...c, service: 'shop' })),
      facts: made.facts.map((f, i) => ({
        ...f,
        service: 'shop',
        startTimeMs: 1_700_000_000_000 + i,
        model: 'gpt-4o',
        provider: 'openai',
        offered: [...LISTS[0]!],
        promptVersion: 'p1',
      })),
    };
    db.tx([...sink.collect({ source: 'otlp', ...first })], true, recording);
    expect(statements).toContain('INSERT INTO change_state');
    expect(statements).toContain('INSERT INTO service_tool_sets');
    expect(statements).toContain('INSERT INTO tool_definitions');
    statements.length = 0;
    // The same values a second later: calls and versions only.
    const later = { ...first, facts: first.facts.map((f) => ({ ...f, startTimeMs: f.startTimeMs + 1_000 })) };
    db.tx([...sink.collect({ source: 'otlp', ...later })], true, recording);
    expect(statements).toEqual(['INSERT INTO tool_versions', 'INSERT INTO version_minutes']);
    // A restarted process knows the state from the store: no sighting. Its first batch writes the
    // definitions once (it has not stored them itself: a no-op on their rows), its next none.
    const restarted = changesSink(db.port, DEFAULT_OBSERVE_LIMITS, now);
    await new Promise((res) => setImmediate(res));
    statements.length = 0;
    db.tx([...restarted.collect({ source: 'otlp', ...later })], true, recording);
    expect(statements).toEqual([
      'INSERT INTO tool_versions',
      'INSERT INTO tool_definitions',
      'INSERT INTO version_minutes',
    ]);
    statements.length = 0;
    db.tx([...restarted.collect({ source: 'otlp', ...later })], true, recording);
    expect(statements).toEqual(['INSERT INTO tool_versions', 'INSERT INTO version_minutes']);
  });
});
