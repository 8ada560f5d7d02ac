/**
 * Two replicas on one PostgreSQL under a rolling restart (issue 8, "Keep it proven"): two real
 * toolwatch processes behind the retrying sender, which routes each batch (one trace) by its trace id
 * over the replicas it currently knows, as the Collector's loadbalancing exporter does with a
 * Kubernetes resolver — a replica leaves the ring when it starts terminating and joins again when
 * it is back. Under load, one replica is stopped (SIGTERM) and started again, then the other. Every
 * fourth batch holds tool spans only: those calls wait out the grace period in pending_calls while
 * the replicas come and go. Afterwards every acknowledged batch is counted exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { audit, countedPerTool, runSender, type SentBatch } from './sender.js';
import { freePort, startServer, writeConfig, type ServerProcess } from './server-process.js';

const GRACE = '500ms';
const LEASE_MS = 3_000;

describe.skipIf(pgServer().skip)('two replicas on one PostgreSQL', () => {
  let dir = '';
  let url = '';
  const running: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of running) s.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (url) await dropDatabase(url);
  });

  it('rolling restart under load: nothing acknowledged lost or counted twice, tool-span-only calls once', async () => {
    url = await freshDatabase();
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-rel-replicas-'));
    const file = path.join(dir, 'toolwatch.yaml');
    writeConfig(
      file,
      url,
      `server:\n  shutdown_grace: 10s\ndedupe:\n  execution_grace: ${GRACE}\n  pending_lease: ${LEASE_MS}ms\n`,
    );
    const ports = [await freePort(), await freePort()];
    const start = async (i: number) => {
      const s = await startServer({ configFile: file, port: ports[i]! });
      running.push(s);
      return s;
    };
    const servers = [await start(0), await start(1)];
    const inRing = [true, true];
    const route = (traceId: string) => {
      const ring = [0, 1].filter((i) => inRing[i]);
      return servers[ring[Number.parseInt(traceId.slice(-6), 16) % ring.length]!]!.url;
    };
    const service = 'rel-replicas';
    const sending = runSender({
      url: () => servers[0]!.url,
      route,
      service,
      callsPerBatch: 5,
      concurrency: 8,
      durationMs: 8_000,
      giveUpMs: 40_000,
      toolOnlyEvery: 4,
    });
    const restarts: { replica: number; code: number | null; drainMs: number; downMs: number }[] = [];
    let maxRss = 0;
    for (const i of [0, 1]) {
      await new Promise((r) => setTimeout(r, 2_000));
      maxRss = Math.max(maxRss, ...servers.map((s) => s.rssMiB()));
      inRing[i] = false;
      const t0 = Date.now();
      servers[i]!.kill('SIGTERM');
      const exit = await servers[i]!.exited;
      const drainMs = Date.now() - t0;
      servers[i] = await start(i);
      inRing[i] = true;
      restarts.push({ replica: i, code: exit.code, drainMs, downMs: Date.now() - t0 });
    }
    const result = await sending;

    // Tool-span-only calls are counted after the grace period, by whichever replica holds them.
    const complete = (counted: Map<string, number>) =>
      result.batches.every((b: SentBatch) => !b.acked || (counted.get(b.tool) ?? 0) >= b.calls);
    const deadline = Date.now() + 20_000;
    let counted = await countedPerTool(servers[0]!.url, service);
    while (!complete(counted) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      counted = await countedPerTool(servers[0]!.url, service);
    }
    // Long enough for a second count to show: a grace period and a lease hand-over.
    await new Promise((r) => setTimeout(r, LEASE_MS + 1_000));
    counted = await countedPerTool(servers[1]!.url, service);
    const a = audit(result.batches, counted);
    const toolOnly = result.batches.filter((b) => b.toolOnly);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const left = Number((await client.query('SELECT count(*) AS n FROM pending_calls')).rows[0].n);
    await client.end();
    maxRss = Math.max(maxRss, ...servers.map((s) => s.rssMiB()));
    console.info(
      `[reliability] two replicas, rolling restart: ${result.batches.length} batches ` +
        `(${toolOnly.length} tool-span-only), ${a.acked} acknowledged (${a.ackedCalls} calls), lost ${a.lost}, ` +
        `doubled ${a.doubled}, restarts ${JSON.stringify(restarts)}, ` +
        `statuses ${JSON.stringify([...result.statuses])}, ` +
        `connection errors ${result.connectionErrors}, max RSS ${maxRss.toFixed(0)} MiB`,
    );
    for (const r of restarts) expect(r.code).toBe(0);
    expect(a.acked).toBe(result.batches.length);
    expect(a.acked).toBeGreaterThan(50);
    expect(toolOnly.length).toBeGreaterThan(10);
    expect(a.lost).toBe(0);
    expect(a.doubled).toBe(0);
    expect(a.stray).toBe(0);
    expect(left).toBe(0);
    expect([...result.statuses.keys()].every((s) => s === 200 || s === 503)).toBe(true);
    expect(maxRss).toBeLessThan(400);
    for (const s of servers) {
      s.kill('SIGTERM');
      expect((await s.exited).code).toBe(0);
    }
  }, 120_000); // Two replicas, each restarted, under load: ≈ 20 s quiet, 46–84 s on a loaded two-core box (default 30 s).
});
