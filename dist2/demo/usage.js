/** The demo's usage line: apart from src/demo/cli.ts, so cli.ts lists it without loading the OpenTelemetry SDK. */
export const DEMO_USAGE = 'toolwatch demo [--duration 3m] [--history 30m] [--rate 4] [--port 8080] [--host 127.0.0.1] [--db FILE] [--seed 42] [--exit]';
//# sourceMappingURL=usage.js.map