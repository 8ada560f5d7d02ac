/**
 * Self-telemetry over real OTLP/HTTP, switched on the way an operator does it — the standard
 * OTEL_* environment of a real toolwatch process (src/main.ts bundled, run in a child process):
 * - exporting into a second toolwatch, which receives the `ingest batch` spans (and counts no call);
 * - exporting into itself: its own spans come back, are counted as spans received but never traced
 *   again, so the counts settle and stay put, and the process still stops cleanly on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Span } from '../../src/model.js';
import { freePort } from '../global-setup.js';
import { agentTurn } from '../helpers/agent.js';
import { bundle, type Bundle } from '../helpers/bundle.js';
import { metricValue, startToolwatch } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';

let built: Bundle;
const stops: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  built = await bundle('telemetry', { main: 'src/main.ts' });
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});
afterAll(() => built?.remove());

interface Child {
  url: string;
  proc: ChildProcess;
  output(): string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `node main.js` with only the environment given (no OTEL_* from ours), on 127.0.0.1 and a free port. */
async function toolwatchProcess(env: (url: string) => Record<string, string>): Promise<Child> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-telemetry-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_') && !k.startsWith('TOOLWATCH_')),
  );
  const proc = spawn(process.execPath, [path.join(built.dir, 'main.js')], {
    cwd: dir,
    env: {
      ...base,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: path.join(dir, 'toolwatch.db'),
      LOG_LEVEL: 'warn',
      ...env(url),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const child: Child = {
    url,
    proc,
    output: () => out,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
  stops.push(() => child.stop());
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return child;
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null || Date.now() > until) throw new Error(`toolwatch did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const otelEnv = (endpoint: string) => ({
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  OTEL_SERVICE_NAME: 'toolwatch-a',
  OTEL_BSP_SCHEDULE_DELAY: '100',
});

async function metrics(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

async function settle<T>(probe: () => Promise<T>, want: (v: T) => boolean, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (want(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('self-telemetry over OTLP', () => {
  it('into a second toolwatch: it receives the ingest batch spans, with their attributes, and counts no call', async () => {
    const b = await startToolwatch();
    stops.push(() => b.close());
    const seen: Span[] = [];
    const ingest = b.services.pipeline.ingestSpans.bind(b.services.pipeline);
    b.services.pipeline.ingestSpans = (spans, source) => (seen.push(...spans), ingest(spans, source));
    const a = await toolwatchProcess(() => otelEnv(b.url));

    for (const tag of ['t1', 't2']) {
      const agent = otelClient(a.url, { service: 'weather-agent', batchSize: 100 });
      agentTurn(agent.tracer, tag);
      await agent.flush();
      await agent.shutdown();
    }
    const received = await settle(
      async () => metricValue(await metrics(b.url), 'toolwatch_spans_received_total', { source: 'otlp' }),
      (n) => n >= 2,
      10_000,
    );
    expect(received, a.output()).toBe(2);
    expect(seen.map((s) => [s.name, s.scope, s.service])).toEqual([
      ['ingest batch', 'toolwatch', 'toolwatch-a'],
      ['ingest batch', 'toolwatch', 'toolwatch-a'],
    ]);
    for (const s of seen)
      expect(s.attributes).toMatchObject({
        'toolwatch.source': 'otlp',
        'toolwatch.spans': 5,
        'toolwatch.calls': 4,
        'toolwatch.calls.SchemaMismatch': 1,
      });
    expect(metricValue(await metrics(b.url), 'toolwatch_tool_calls_total')).toBe(0);
    expect(metricValue(await metrics(a.url), 'toolwatch_tool_calls_total')).toBe(8);
    expect(await a.stop()).toBe(0);
  }, 60_000);

  it('into itself: its spans come back once, are not traced again, the counts settle, SIGTERM still stops it', async () => {
    const a = await toolwatchProcess((url) => otelEnv(url));
    const agent = otelClient(a.url, { service: 'weather-agent', batchSize: 100 });
    agentTurn(agent.tracer, 't1');
    await agent.flush();
    await agent.shutdown();
    const spans = () =>
      metrics(a.url).then((t) => metricValue(t, 'toolwatch_spans_received_total', { source: 'otlp' }));
    // The agent's 5 spans, then the one `ingest batch` span of that batch, exported back in.
    expect(await settle(spans, (n) => n >= 6, 10_000), a.output()).toBe(6);
    // Several export intervals (100 ms) later: nothing more — the span of the own batch was never made.
    await new Promise((r) => setTimeout(r, 1500));
    const text = await metrics(a.url);
    expect(metricValue(text, 'toolwatch_spans_received_total', { source: 'otlp' })).toBe(6);
    expect(metricValue(text, 'toolwatch_tool_calls_total')).toBe(4);
    expect(await a.stop()).toBe(0);
    expect(a.output()).not.toMatch(/"level":(50|60)/); // no error logged
  }, 60_000);
});
