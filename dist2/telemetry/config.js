export const telemetryFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        enabled: { type: 'boolean', default: false },
        service_name: { type: 'string', minLength: 1, default: 'toolwatch' },
    },
};
const EXPORTERS = ['otlp', 'console', 'zipkin', 'none'];
const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'];
/** Read here; the rest of OTEL_* is the SDK's. */
const OWN = new Set(['OTEL_SDK_DISABLED', 'OTEL_TRACES_EXPORTER', 'OTEL_SERVICE_NAME']);
const list = (v) => (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== 'null');
/** An OTEL_* value as it may be shown: headers masked, credentials and query cut from URLs. */
export function redactOtelValue(name, value) {
    if (/HEADERS$/.test(name))
        return value
            .split(',')
            .map((kv) => `${kv.split('=')[0].trim()}=[redacted]`)
            .join(',');
    if (/ENDPOINT$/.test(name)) {
        try {
            const u = new URL(value);
            return `${u.protocol}//${u.host}${u.pathname}`;
        }
        catch {
            return '(not a URL)';
        }
    }
    if (/KEY|SECRET|TOKEN|PASSWORD|CERTIFICATE/.test(name))
        return '[redacted]';
    return value;
}
export function toTelemetryConfig(f, env, problems) {
    const exporters = list(env.OTEL_TRACES_EXPORTER);
    for (const e of exporters)
        if (!EXPORTERS.includes(e))
            problems.push(`OTEL_TRACES_EXPORTER: unknown exporter ${JSON.stringify(e)} (known: ${EXPORTERS.join(', ')})`);
    for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
        const v = env[name]?.trim();
        if (v && !PROTOCOLS.includes(v))
            problems.push(`${name}: must be one of ${PROTOCOLS.join(', ')}, got ${JSON.stringify(v)}`);
    }
    const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
    const none = exporters.length > 0 && exporters.every((e) => e === 'none');
    const byEnv = exporters.length > 0 && !none;
    const reason = disabled
        ? 'OTEL_SDK_DISABLED'
        : none
            ? 'OTEL_TRACES_EXPORTER=none'
            : f.enabled
                ? 'telemetry.enabled'
                : byEnv
                    ? 'OTEL_TRACES_EXPORTER'
                    : 'off';
    const sdkEnv = {};
    for (const [k, v] of Object.entries(env))
        if (k.startsWith('OTEL_') && !OWN.has(k) && v !== undefined)
            sdkEnv[k] = redactOtelValue(k, v);
    return {
        enabled: reason === 'telemetry.enabled' || reason === 'OTEL_TRACES_EXPORTER',
        reason,
        serviceName: env.OTEL_SERVICE_NAME?.trim() || f.service_name,
        exporters: byEnv ? exporters.filter((e) => e !== 'none') : ['otlp'],
        sdkEnv: Object.fromEntries(Object.entries(sdkEnv).sort(([a], [b]) => a.localeCompare(b))),
    };
}
export const telemetrySection = {
    key: 'telemetry',
    schema: telemetryFileSchema,
    env: { names: ['OTEL_TRACES_EXPORTER', 'OTEL_SDK_DISABLED', 'OTEL_SERVICE_NAME'] },
    build: (f, ctx, problems) => toTelemetryConfig(f, ctx.env, problems),
};
//# sourceMappingURL=config.js.map