/**
 * The real OpenTelemetry JS SDK as the test client: a BasicTracerProvider with a batch processor
 * and small export batches (so traces straddle exports), exporting over OTLP/HTTP protobuf or JSON.
 */
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Tracer } from '@opentelemetry/api';

export type Wire = 'proto' | 'json';

export interface OtelClient {
  tracer: Tracer;
  exporter: SpanExporter;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface OtelClientOptions {
  wire?: Wire;
  service?: string;
  batchSize?: number;
  gzip?: boolean;
  /** Sent with every export (e.g. `authorization: Bearer …`), as OTEL_EXPORTER_OTLP_HEADERS would. */
  headers?: Record<string, string>;
  /** Trusted CA certificate(s), PEM, for an https:// base URL. */
  ca?: string | Buffer;
}

export function otelClient(baseUrl: string, opts: OtelClientOptions = {}): OtelClient {
  const url = `${baseUrl}/v1/traces`;
  const exporterOpts = {
    url,
    ...(opts.gzip ? { compression: 'gzip' as never } : {}),
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.ca ? { httpAgentOptions: { ca: opts.ca } } : {}),
  };
  const exporter: SpanExporter =
    opts.wire === 'json' ? new JsonExporter(exporterOpts) : new ProtoExporter(exporterOpts);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.service ?? 'test-agent' }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxExportBatchSize: opts.batchSize ?? 2,
        scheduledDelayMillis: 20,
        maxQueueSize: 10_000,
      }),
    ],
  });
  return {
    tracer: provider.getTracer('toolwatch-test'),
    exporter,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
