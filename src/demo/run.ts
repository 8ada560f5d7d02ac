/**
 * The demo: toolwatch on a fresh SQLite file (the embedded default) and, in the same process, the
 * agents of src/demo/scenario.ts sending their spans to it over OTLP/HTTP through the real
 * OpenTelemetry SDK (one tracer provider per service, batch processor, protobuf exporter) — first
 * `history` of backfilled traffic with its span times in the past, so the trends, the model switch,
 * the definition change, problems and alerts are on the page at once, then live traffic for
 * `duration`. The SDK packages are loaded only here (`toolwatch demo` imports this file lazily).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createServices, type Services } from '../services.js';
import { seeded } from '../util/seeded.js';
import { DEMO_SERVICES, emitTurn, nextTurn, type DemoService, type Timeline } from './scenario.js';

export interface DemoOptions {
  /** Live traffic after the backfill. */
  durationMs: number;
  /** Backfilled traffic before now (span times in the past). */
  historyMs: number;
  /** Live agent turns per second (all services together). */
  rate: number;
  host: string;
  /** 0 = any free port. */
  port: number;
  /** Keep the SQLite file here; by default a temporary one, removed on stop. */
  dbPath?: string;
  seed: number;
}

export const DEMO_DEFAULTS: DemoOptions = {
  durationMs: 180_000,
  historyMs: 30 * 60_000,
  rate: 4,
  host: '127.0.0.1',
  port: 8080,
  seed: 42,
};

/** Backfilled turns per second of history (all services together). */
const HISTORY_RATE = 1;
/** Backfilled turns between two flushes (the exporters' queues stay small). */
const FLUSH_EVERY = 300;

/** The demo's alert rules: a tool's error rate and its API's refusals and outages. */
const RULES = [
  {
    name: 'tool-error-rate',
    kind: 'error_rate',
    window: '10m',
    threshold: 0.1,
    min_calls: 20,
    by: ['service', 'tool'],
    severity: 'warning',
  },
  {
    name: 'tool-api-errors',
    kind: 'execution_error_rate',
    window: '10m',
    threshold: 0.05,
    min_calls: 20,
    by: ['service', 'tool'],
    statuses: ['client_error', 'server_error'],
    severity: 'critical',
  },
];

export interface DemoStats {
  turns: number;
  backfilled: number;
}

export interface DemoRun {
  url: string;
  services: Services;
  timeline: Timeline;
  /** Resolves when the backfill has been sent and counted. */
  backfilled: Promise<void>;
  /** Resolves when the live traffic has ended and every span was exported. */
  done: Promise<DemoStats>;
  stop(): Promise<void>;
}

export async function startDemo(opts: DemoOptions, say: (line: string) => void = () => undefined): Promise<DemoRun> {
  const temp = opts.dbPath === undefined ? mkdtempSync(path.join(tmpdir(), 'toolwatch-demo-')) : undefined;
  const db = opts.dbPath ?? path.join(temp!, 'toolwatch-demo.db');
  const cwd = temp ?? path.dirname(path.resolve(db));
  // The demo is self-contained: no toolwatch.yaml and no TOOLWATCH_* variable applies.
  const config = loadConfig({
    cwd,
    env: {},
    overrides: {
      database_url: db,
      // Alerts fire on purpose here: the page shows them; the console keeps to the demo's own lines.
      log_level: 'error',
      server: { host: opts.host, port: opts.port },
      alerts: { interval: '15s', rules: RULES },
      // The demo's agents share toolwatch's event loop: their own CPU work must not shed their batches.
      ingest: { max_event_loop_delay: '0s' },
    },
  });
  const services = await createServices(config, createLogger(config.logLevel));
  const app = await buildApp(services);
  const url = await app.listen({ host: opts.host, port: opts.port });

  const providers = new Map<DemoService, BasicTracerProvider>(
    DEMO_SERVICES.map((service) => [
      service,
      new BasicTracerProvider({
        resource: resourceFromAttributes({ 'service.name': service, 'service.version': '1.4.2' }),
        spanProcessors: [
          new BatchSpanProcessor(new OTLPTraceExporter({ url: `${url}/v1/traces` }), {
            maxQueueSize: 50_000,
            maxExportBatchSize: 512,
            scheduledDelayMillis: 500,
          }),
        ],
      }),
    ]),
  );
  const flush = () => Promise.all([...providers.values()].map((p) => p.forceFlush()));

  const rnd = seeded(opts.seed);
  const t0 = Date.now();
  const storyStart = t0 - opts.historyMs;
  const story = opts.historyMs + opts.durationMs;
  const timeline: Timeline = {
    modelSwitchMs: storyStart + story * 0.4,
    definitionChangeMs: storyStart + story * 0.55,
  };
  let turns = 0;
  const emit = (atMs: number) => {
    const turn = nextTurn(rnd, atMs, timeline);
    emitTurn(providers.get(turn.service)!.getTracer('toolwatch-demo'), turn, atMs, ++turns);
  };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let backfill = 0;
  let finish: (() => void) | undefined;
  const backfilled = (async () => {
    const n = Math.floor((opts.historyMs / 1000) * HISTORY_RATE);
    for (let i = 0; i < n && !stopped; i++) {
      emit(storyStart + (i / n) * opts.historyMs);
      if ((i + 1) % FLUSH_EVERY === 0) await flush();
    }
    backfill = turns;
    await flush();
    // Alerts and problems from the backfill are on the page before the first evaluation interval.
    await services.alerting?.evaluate();
    say(
      `backfilled ${turns.toLocaleString('en-US')} agent turns (${Math.round(opts.historyMs / 60_000)} min of traffic)`,
    );
  })();
  const done = backfilled.then(
    () =>
      new Promise<DemoStats>((resolve) => {
        const end = Date.now() + opts.durationMs;
        finish = () => resolve({ turns, backfilled: backfill });
        const tick = async () => {
          if (stopped) return finish!();
          if (Date.now() >= end) {
            await flush();
            await services.alerting?.evaluate();
            return finish!();
          }
          const now = Date.now();
          for (let i = 0; i < opts.rate; i++) emit(now - Math.floor(rnd() * 1000));
          timer = setTimeout(() => void tick(), 1000);
        };
        void tick();
      }),
  );

  return {
    url,
    services,
    timeline,
    backfilled,
    done,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      finish?.();
      await backfilled.catch(() => undefined);
      await Promise.all([...providers.values()].map((p) => p.shutdown().catch(() => undefined)));
      await app.close();
      await services.close();
      if (temp) rmSync(temp, { recursive: true, force: true });
    },
  };
}
