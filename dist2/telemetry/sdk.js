/**
 * Starts the OpenTelemetry Node SDK for toolwatch's own traces — only when the config says
 * telemetry is on (the SDK is not even loaded otherwise). Traces only: no metrics (Prometheus
 * scrapes /metrics), no logs, no propagation and no automatic instrumentation (so no HTTP spans: an
 * ingest request is one `ingest batch` span, made by the pipeline). The SDK builds its exporters
 * from the standard OTEL_* variables of the process environment; tests pass span processors
 * instead. Its diagnostics (an export that failed) go to toolwatch's log.
 */
import { context, DiagLogLevel, diag, propagation, trace } from '@opentelemetry/api';
import { TRACER_NAME } from './tracing.js';
export const NO_TELEMETRY = { tracer: undefined, shutdown: async () => undefined };
/** The SDK registers process-wide globals: one running telemetry per process. */
let running = false;
export async function startTelemetry(cfg, opts) {
    if (!cfg.enabled)
        return NO_TELEMETRY;
    if (running)
        throw new Error('self-telemetry is already running in this process');
    running = true;
    const { NodeSDK } = await import('@opentelemetry/sdk-node');
    const sdk = new NodeSDK({
        serviceName: cfg.serviceName,
        instrumentations: [],
        metricReaders: [],
        logRecordProcessors: [],
        textMapPropagator: null,
        ...(opts.spanProcessors ? { spanProcessors: opts.spanProcessors } : {}),
    });
    diag.setLogger({
        error: (message, ...args) => opts.log.warn({ args }, `opentelemetry: ${message}`),
        warn: (message, ...args) => opts.log.warn({ args }, `opentelemetry: ${message}`),
        info: (message) => opts.log.debug(`opentelemetry: ${message}`),
        debug: () => undefined,
        verbose: () => undefined,
    }, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
    sdk.start();
    opts.log.info({ telemetry: cfg.reason, service: cfg.serviceName, exporters: opts.spanProcessors ? 'given' : cfg.exporters }, 'self-telemetry on');
    const tracer = trace.getTracer(TRACER_NAME, opts.version);
    let stopped = false;
    return {
        tracer,
        async shutdown() {
            if (stopped)
                return;
            stopped = true;
            try {
                await sdk.shutdown();
            }
            finally {
                // The SDK registered globals; release them so a later start in this process (tests) registers its own.
                trace.disable();
                context.disable();
                propagation.disable();
                diag.disable();
                running = false;
            }
        },
    };
}
//# sourceMappingURL=sdk.js.map