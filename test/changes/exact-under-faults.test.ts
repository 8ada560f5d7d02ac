/**
 * Definition versions, their per-minute counts (version_minutes, migration 013) and change events
 * exact under process faults: real toolwatch processes, the retrying sender of test/reliability, and
 * every batch one trace of model spans offering `lookup` in one of two definitions (the description
 * alternates every SWITCH batches of span time). Each process is killed with kill -9 twice while
 * batches are in flight — one process on SQLite and on PostgreSQL, and two replicas on one
 * PostgreSQL (batches routed by trace id), each killed once. Afterwards, read from the store itself:
 * each version's calls and version_minutes sum are exactly the acknowledged calls offered with it
 * (a batch resent after a kill adds nothing), and the change events are exactly the script's
 * switches (no doubles, none lost), each in its switch's span of time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { runSender, traceIdOf, type SentBatch } from '../reliability/sender.js';
import { buildOnce, freePort, startServer, writeConfig, type ServerProcess } from '../reliability/server-process.js';

const SERVICE = 'rel-changes';
const CALLS = 4;
/** Batches per definition phase (one batch = one second of span time). */
const SWITCH = 6;
const BASE = Date.now() - 3_600_000;

const phaseOf = (id: number) => Math.floor(id / SWITCH);
const spanTime = (id: number) => BASE + id * 1_000;

const definitions = (phase: number) =>
  JSON.stringify([
    {
      type: 'function',
      function: {
        name: 'lookup',
        description: phase % 2 === 0 ? 'Look an order up.' : 'Look an order up by its id.',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      },
    },
  ]);

/** One trace per batch: CALLS model spans, each proposing one call of `lookup` with the batch's definition. */
function body(id: number): string {
  const at = String(spanTime(id) * 1e6);
  const spans = Array.from({ length: CALLS }, (_, i) => ({
    traceId: traceIdOf(id),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: 'chat',
    startTimeUnixNano: at,
    endTimeUnixNano: at,
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
      { key: 'gen_ai.tool.definitions', value: { stringValue: definitions(phaseOf(id)) } },
      {
        key: 'gen_ai.output.messages',
        value: {
          stringValue: JSON.stringify([
            {
              role: 'assistant',
              parts: [{ type: 'tool_call', id: `c${i}`, name: 'lookup', arguments: '{"order_id":"1"}' }],
            },
          ]),
        },
      },
    ],
  }));
  return JSON.stringify({
    resourceSpans: [
      { resource: { attributes: [{ key: 'service.name', value: { stringValue: SERVICE } }] }, scopeSpans: [{ spans }] },
    ],
  });
}

interface Stored {
  versions: { version: string; firstSeen: number; calls: number }[];
  minutes: Map<string, number>;
  events: { timeMs: number; kind: string; from: string; to: string }[];
}

const VERSIONS = 'SELECT version, first_seen, calls FROM tool_versions WHERE service = $1 ORDER BY first_seen';
const MINUTES = 'SELECT version, SUM(count) AS n FROM version_minutes WHERE service = $1 GROUP BY version';
const EVENTS = 'SELECT time_ms, kind, from_value, to_value FROM change_events WHERE service = $1 ORDER BY time_ms, id';

async function readStore(databaseUrl: string, sqliteFile: string): Promise<Stored> {
  let rows: [Record<string, unknown>[], Record<string, unknown>[], Record<string, unknown>[]];
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      rows = [
        (await client.query(VERSIONS, [SERVICE])).rows,
        (await client.query(MINUTES, [SERVICE])).rows,
        (await client.query(EVENTS, [SERVICE])).rows,
      ];
    } finally {
      await client.end();
    }
  } else {
    const db = new Database(sqliteFile, { readonly: true });
    try {
      const q = (s: string) => db.prepare(s.replace('$1', '?')).all(SERVICE) as Record<string, unknown>[];
      rows = [q(VERSIONS), q(MINUTES), q(EVENTS)];
    } finally {
      db.close();
    }
  }
  return {
    versions: rows[0].map((r) => ({
      version: String(r.version),
      firstSeen: Number(r.first_seen),
      calls: Number(r.calls),
    })),
    minutes: new Map(rows[1].map((r) => [String(r.version), Number(r.n)])),
    events: rows[2].map((r) => ({
      timeMs: Number(r.time_ms),
      kind: String(r.kind),
      from: String(r.from_value),
      to: String(r.to_value),
    })),
  };
}

/** What the script sent: acknowledged calls per phase parity (the two definitions) and the switches. */
function script(batches: readonly SentBatch[]) {
  const calls = [0, 0];
  for (const b of batches) if (b.acked) calls[phaseOf(b.id) % 2]! += b.calls;
  const last = Math.max(...batches.map((b) => phaseOf(b.id)));
  const switches = Array.from({ length: last }, (_, k) => ({
    fromParity: k % 2,
    sinceMs: spanTime((k + 1) * SWITCH),
    untilMs: spanTime((k + 2) * SWITCH),
  }));
  return { calls, switches };
}

function checkExact(sent: ReturnType<typeof script>, stored: Stored) {
  // The two definitions, in the order they were first seen (phase 0's first).
  expect(stored.versions).toHaveLength(2);
  const [v0, v1] = stored.versions.map((v) => v.version) as [string, string];
  expect(stored.versions.map((v) => v.calls)).toEqual(sent.calls);
  expect([stored.minutes.get(v0), stored.minutes.get(v1)]).toEqual(sent.calls);
  // Exactly one event per switch, v0 → v1 → v0 …, each inside its switch's phase of span time.
  const defs = stored.events.filter((e) => e.kind === 'tool_definition');
  expect(stored.events.filter((e) => e.kind !== 'tool_definition')).toEqual([]);
  expect(defs.map((e) => [e.from, e.to])).toEqual(sent.switches.map((s) => (s.fromParity === 0 ? [v0, v1] : [v1, v0])));
  defs.forEach((e, k) => {
    expect(e.timeMs).toBeGreaterThanOrEqual(sent.switches[k]!.sinceMs);
    expect(e.timeMs).toBeLessThan(sent.switches[k]!.untilMs);
  });
}

// The processes' build (tsc, shared with test/reliability) is not part of any probe's time.
beforeAll(() => buildOnce(), 180_000);

const dirs: string[] = [];
const made: string[] = [];
const running: ServerProcess[] = [];
afterAll(async () => {
  for (const s of running) s.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const u of made) await dropDatabase(u);
});

function configFile(databaseUrl: string): { file: string; sqliteFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-chg-faults-'));
  dirs.push(dir);
  const file = path.join(dir, 'toolwatch.yaml');
  const sqliteFile = path.join(dir, 'toolwatch.db');
  writeConfig(file, databaseUrl || sqliteFile, 'server:\n  shutdown_grace: 10s\n');
  return { file, sqliteFile };
}

/** Sends for `durationMs` through `replicas` processes, killing each with kill -9 `kills` times in turn. */
async function underKills(databaseUrl: string, replicas: number, kills: number) {
  const { file, sqliteFile } = configFile(databaseUrl);
  const ports = await Promise.all(Array.from({ length: replicas }, () => freePort()));
  const start = async (i: number) => {
    const s = await startServer({ configFile: file, port: ports[i]! });
    running.push(s);
    return s;
  };
  const servers: ServerProcess[] = [];
  for (let i = 0; i < replicas; i++) servers.push(await start(i));
  const rounds = replicas * kills;
  const sending = runSender({
    url: () => servers[0]!.url,
    // By trace id, as the Collector's loadbalancing exporter: a batch resent after a kill goes to the same replica.
    route: (traceId) => servers[Number.parseInt(traceId.slice(-6), 16) % replicas]!.url,
    body,
    service: SERVICE,
    callsPerBatch: CALLS,
    concurrency: 6,
    durationMs: 2_000 * (rounds + 1),
    giveUpMs: 40_000,
  });
  for (let r = 0; r < rounds; r++) {
    await new Promise((res) => setTimeout(res, 1_200));
    const i = r % replicas;
    servers[i]!.kill('SIGKILL');
    expect((await servers[i]!.exited).signal).toBe('SIGKILL');
    servers[i] = await start(i);
  }
  const result = await sending;
  for (const s of servers) s.kill('SIGTERM');
  for (const s of servers) expect((await s.exited).code).toBe(0);
  return { result, stored: await readStore(databaseUrl, sqliteFile) };
}

const engines = [
  { name: 'SQLite', skip: false, url: async () => '' },
  { name: 'PostgreSQL', skip: pgServer().skip, url: freshDatabase },
];

describe.each(engines)('versions and change events across kill -9 on $name', ({ skip, url }) => {
  it.skipIf(skip)(
    'kill -9 ×2 under load: each version’s calls and minutes exactly the acknowledged calls, one event per switch',
    async () => {
      const u = await url();
      if (u) made.push(u);
      const { result, stored } = await underKills(u, 1, 2);
      const sent = script(result.batches);
      console.info(
        `[changes] kill -9 ×2: ${result.batches.length} batches, ${result.connectionErrors} connection errors, ` +
          `${result.batches.filter((b) => b.unanswered).length} unanswered at a kill, ${sent.switches.length} switches`,
      );
      expect(result.batches.every((b) => b.acked)).toBe(true);
      expect(sent.switches.length).toBeGreaterThanOrEqual(2);
      checkExact(sent, stored);
    },
    90_000,
  );
});

describe.skipIf(pgServer().skip)('versions and change events across two replicas on PostgreSQL', () => {
  it('two replicas, each killed with kill -9 once under load: exact versions, one event per switch', async () => {
    const u = await freshDatabase();
    made.push(u);
    const { result, stored } = await underKills(u, 2, 1);
    const sent = script(result.batches);
    console.info(
      `[changes] two replicas, kill -9 each: ${result.batches.length} batches, ${result.connectionErrors} connection errors, ` +
        `${sent.switches.length} switches`,
    );
    expect(result.batches.every((b) => b.acked)).toBe(true);
    expect(sent.switches.length).toBeGreaterThanOrEqual(2);
    checkExact(sent, stored);
  }, 90_000);
});
