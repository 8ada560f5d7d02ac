/**
 * The telemetry switch, read in the config phase: off by default; on with telemetry.enabled or the
 * standard OTEL_TRACES_EXPORTER; OTEL_SDK_DISABLED and `none` keep it off; wrong exporter names and
 * protocols are configuration problems (exit 2), not silent SDK warnings. And the SDK itself: not
 * started when off, one per process, its globals released at shutdown.
 */
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startTelemetry } from '../../src/telemetry/sdk.js';

const telemetry = (env: Record<string, string> = {}, file: Record<string, unknown> = {}) =>
  loadConfig({ cwd: '/tmp', env, overrides: { telemetry: file } }).telemetry;
const problems = (env: Record<string, string>): string[] => {
  try {
    loadConfig({ cwd: '/tmp', env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('the telemetry switch', () => {
  it.each([
    ['nothing set', {}, {}, false, 'off'],
    ['telemetry.enabled', {}, { enabled: true }, true, 'telemetry.enabled'],
    ['OTEL_TRACES_EXPORTER=otlp', { OTEL_TRACES_EXPORTER: 'otlp' }, {}, true, 'OTEL_TRACES_EXPORTER'],
    ['OTEL_TRACES_EXPORTER=console,otlp', { OTEL_TRACES_EXPORTER: 'console, otlp' }, {}, true, 'OTEL_TRACES_EXPORTER'],
    [
      'an endpoint alone (inherited from an agent environment)',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
      {},
      false,
      'off',
    ],
    [
      'OTEL_TRACES_EXPORTER=none beats the file',
      { OTEL_TRACES_EXPORTER: 'none' },
      { enabled: true },
      false,
      'OTEL_TRACES_EXPORTER=none',
    ],
    [
      'OTEL_SDK_DISABLED=true beats everything',
      { OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' },
      { enabled: true },
      false,
      'OTEL_SDK_DISABLED',
    ],
  ])('%s', (_what, env, file, enabled, reason) => {
    expect(telemetry(env, file)).toMatchObject({ enabled, reason });
  });

  it('OTEL_SERVICE_NAME names the service over telemetry.service_name; the SDK-read variables are shown redacted', () => {
    const t = telemetry(
      {
        OTEL_SERVICE_NAME: 'tw-eu',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:pw@collector.example:4318/base?token=abc',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer s3cr3t,x-tenant=acme',
        OTEL_BSP_SCHEDULE_DELAY: '500',
        PATH: '/usr/bin',
      },
      { service_name: 'from-file' },
    );
    expect(t.serviceName).toBe('tw-eu');
    expect(t.exporters).toEqual(['otlp']);
    expect(t.sdkEnv).toEqual({
      OTEL_BSP_SCHEDULE_DELAY: '500',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318/base',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=[redacted],x-tenant=[redacted]',
    });
    expect(telemetry({}, { service_name: 'from-file' }).serviceName).toBe('from-file');
    expect(telemetry().serviceName).toBe('toolwatch');
  });

  it('unknown exporters and protocols are reported in the config phase', () => {
    expect(
      problems({
        OTEL_TRACES_EXPORTER: 'otlp,jaeger',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
      }),
    ).toEqual([
      'OTEL_TRACES_EXPORTER: unknown exporter "jaeger" (known: otlp, console, zipkin, none)',
      'OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http/protobuf, http/json, grpc, got "http"',
    ]);
    expect(problems({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual([]);
    expect(() => loadConfig({ cwd: '/tmp', overrides: { telemetry: { enabled: 'yes' } } })).toThrow(
      /telemetry\.enabled: must be boolean/,
    );
  });
});

describe('the SDK', () => {
  const log = createLogger('silent');

  it('off: nothing is started, the global API stays a no-op', async () => {
    const off = await startTelemetry(telemetry(), { log });
    expect(off.tracer).toBeUndefined();
    expect(trace.getTracer('x').startSpan('y').isRecording()).toBe(false);
    await off.shutdown();
  });

  it('on: records; one per process; shutdown releases the globals for the next', async () => {
    const mem = new InMemorySpanExporter();
    // (The resource's host and process attributes resolve asynchronously: flush before looking.)
    const processor = new SimpleSpanProcessor(mem);
    const on = await startTelemetry(telemetry({}, { enabled: true }), { log, spanProcessors: [processor] });
    on.tracer!.startSpan('one').end();
    await processor.forceFlush();
    expect(mem.getFinishedSpans().map((s) => s.name)).toEqual(['one']);
    await expect(startTelemetry(telemetry({}, { enabled: true }), { log })).rejects.toThrow(/already running/);
    await on.shutdown();
    expect(trace.getTracer('x').startSpan('y').isRecording()).toBe(false);
    const mem2 = new InMemorySpanExporter(); // (the first was shut down with its SDK)
    const processor2 = new SimpleSpanProcessor(mem2);
    const again = await startTelemetry(telemetry({}, { enabled: true }), { log, spanProcessors: [processor2] });
    again.tracer!.startSpan('two').end();
    await processor2.forceFlush();
    expect(mem2.getFinishedSpans().map((s) => s.name)).toEqual(['two']);
    await again.shutdown();
  });
});
