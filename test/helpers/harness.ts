/**
 * Starts the real app on a real socket (127.0.0.1, a free port) over a fresh SQLite file, the way
 * main.ts does, and shuts everything down afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createServices, type ServiceOverrides, type Services } from '../../src/services.js';

export interface Harness {
  url: string;
  app: FastifyInstance;
  services: Services;
  dir: string;
  metrics(): Promise<string>;
  /** Stops it as a graceful shutdown does, keeping its folder: a next process may open its SQLite file. */
  stop(): Promise<void>;
  /** Stops it (unless stopped) and removes its folder. */
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Config keys as in toolwatch.yaml. */
  config?: Record<string, unknown>;
  /** Tool registry files to write: name → array of definitions (paths resolved in the temp dir). */
  toolFiles?: Record<string, { service?: string; tools: unknown[] }>;
  services?: ServiceOverrides;
  env?: Record<string, string>;
  listen?: boolean;
  /** buildApp's options (HTTPS). */
  app?: AppOptions;
}

export async function startToolwatch(opts: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-test-'));
  const tools = Object.entries(opts.toolFiles ?? {}).map(([name, f]) => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(f.tools));
    return { ...(f.service ? { service: f.service } : {}), path: file };
  });
  // A start that fails (a config or store error under test) leaves nothing behind either.
  const started = await (async () => {
    const config = loadConfig({
      cwd: dir,
      env: opts.env ?? {},
      overrides: {
        database_url: path.join(dir, 'toolwatch.db'),
        log_level: process.env.TEST_LOG_LEVEL ?? 'silent',
        server: { host: '127.0.0.1', port: 0 },
        tools,
        ...opts.config,
        // The tests' own CPU work runs on this event loop: shedding on its delay would refuse their
        // batches at random. Tests of the shedder set it; the reliability probes run the real defaults.
        ingest: { max_event_loop_delay: '0s', ...(opts.config?.ingest as Record<string, unknown> | undefined) },
      },
    });
    const services = await createServices(config, createLogger(config.logLevel), opts.services);
    const app = await buildApp(services, opts.app);
    let url = '';
    if (opts.listen !== false) url = await app.listen({ host: '127.0.0.1', port: 0 });
    return { services, app, url };
  })().catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  const { services, app, url } = started;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
    await services.close();
  };
  return {
    url,
    app,
    services,
    dir,
    async metrics() {
      return services.metrics.registry.metrics();
    },
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The value of one Prometheus series in text exposition output (0 when absent). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = parseLabels(m[2] ?? '');
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) {
      total += Number(m[3]);
      found = true;
    }
  }
  return found ? total : 0;
}

function parseLabels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /(\w+)="((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(s); m; m = re.exec(s))
    out[m[1]!] = m[2]!.replace(/\\"/g, '"').replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
  return out;
}
