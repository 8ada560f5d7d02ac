/**
 * PostgreSQL stopped and killed under load (issue 8, "Keep it proven"), on a throwaway cluster of its
 * own: `pg_ctl stop -m fast` (connections terminated mid-transaction), then `-m immediate` (the
 * server killed, crash recovery at restart), each for a while under load. The toolwatch process
 * lives through it (same pid, nothing on stderr but warnings), answers only 200 or 503 while the
 * server is away, recovers by itself, and every acknowledged batch is counted exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../global-setup.js';
import { pgServer } from '../helpers/pg.js';
import { audit, countedPerTool, runSender } from './sender.js';
import { freePort, startServer, writeConfig, type ServerProcess } from './server-process.js';

describe.skipIf(pgServer().skip)('PostgreSQL faults under load', () => {
  let cluster: Cluster;
  let dir: string;
  let server: ServerProcess;
  beforeAll(async () => {
    // Durable: with synchronous_commit off, a killed server loses commits it already acknowledged.
    cluster = await startCluster({ durable: true });
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-rel-pg-'));
    const file = path.join(dir, 'toolwatch.yaml');
    writeConfig(file, cluster.url);
    server = await startServer({ configFile: file, port: await freePort() });
  }, 120_000);
  afterAll(async () => {
    server?.kill('SIGKILL');
    try {
      cluster?.stop();
    } catch {
      // Halted by a failed test: its data dir is removed all the same.
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const title =
    'stopped (fast), then killed (immediate): only 200/503, recovery without restart, nothing lost or doubled';
  it(title, async () => {
    const service = 'rel-pg-faults';
    const sending = runSender({
      url: () => server.url,
      service,
      callsPerBatch: 5,
      concurrency: 8,
      durationMs: 7_000,
      giveUpMs: 40_000,
    });
    const outages: { mode: string; downMs: number; recoveredMs: number }[] = [];
    for (const mode of ['fast', 'immediate'] as const) {
      await new Promise((r) => setTimeout(r, 1_000));
      const t0 = Date.now();
      cluster.halt(mode);
      await new Promise((r) => setTimeout(r, 1_500));
      const down = await fetch(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      cluster.resume();
      const up = Date.now();
      // Recovery without a restart: the next batch commits once the server is back.
      while ((await fetch(`${server.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 20));
      outages.push({ mode, downMs: up - t0, recoveredMs: Date.now() - up });
    }
    const result = await sending;
    const a = audit(result.batches, await countedPerTool(server.url, service));
    const rss = server.rssMiB();
    console.info(
      `[reliability] PostgreSQL faults: ${JSON.stringify(outages)}; ${result.batches.length} batches, ` +
        `${a.acked} acknowledged, lost ${a.lost}, doubled ${a.doubled}, ` +
        `statuses ${JSON.stringify([...result.statuses])}, RSS ${rss.toFixed(0)} MiB`,
    );
    expect(await Promise.race([server.exited.then(() => 'exited'), Promise.resolve('alive')])).toBe('alive');
    expect(server.stderr()).not.toMatch(/Unhandled|uncaught|TypeError|RangeError/i);
    expect([...result.statuses.keys()].every((s) => s === 200 || s === 503)).toBe(true);
    expect(result.statuses.get(503) ?? 0).toBeGreaterThan(0);
    expect(a.acked).toBe(result.batches.length);
    expect(a.lost).toBe(0);
    expect(a.doubled).toBe(0);
    expect(a.stray).toBe(0);
    for (const o of outages) expect(o.recoveredMs).toBeLessThan(5_000);
    expect(rss).toBeLessThan(400);
  });
});
