/**
 * The `telemetry:` section: toolwatch's own traces, through the OpenTelemetry Node SDK. Off by
 * default; on with `telemetry.enabled: true` or the standard OTEL_TRACES_EXPORTER (any value but
 * `none`); OTEL_SDK_DISABLED=true keeps it off whatever else says. src/config.ts passes the
 * environment in: this module reads the switch and the service name, and checks the variables whose
 * wrong values the SDK would only whisper about (exporter names, OTLP protocol). Every other
 * standard variable (endpoint, headers, timeouts, sampler, resource attributes, batch sizes) is the
 * SDK's to read, from the process environment, as the OpenTelemetry specification defines them;
 * they are recorded here only to be shown (secrets redacted) by `toolwatch config check`.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { ConfigSection } from '../util/config-section.js';

export const telemetryFileSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    enabled: { type: 'boolean', default: false },
    service_name: { type: 'string', minLength: 1, default: 'toolwatch' },
  },
} as const;

export type TelemetryFileShape = FromSchema<typeof telemetryFileSchema>;

export interface TelemetryConfig {
  enabled: boolean;
  /** What turned it on (or kept it off). */
  reason: 'telemetry.enabled' | 'OTEL_TRACES_EXPORTER' | 'off' | 'OTEL_SDK_DISABLED' | 'OTEL_TRACES_EXPORTER=none';
  /** OTEL_SERVICE_NAME, else telemetry.service_name. */
  serviceName: string;
  /** The exporters the SDK will build (OTEL_TRACES_EXPORTER; the SDK's default is otlp). */
  exporters: string[];
  /** The other OTEL_* variables, as the SDK will read them, secrets redacted: for display only. */
  sdkEnv: Record<string, string>;
}

const EXPORTERS = ['otlp', 'console', 'zipkin', 'none'];
const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'];
/** Read here; the rest of OTEL_* is the SDK's. */
const OWN = new Set(['OTEL_SDK_DISABLED', 'OTEL_TRACES_EXPORTER', 'OTEL_SERVICE_NAME']);

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== 'null');

/** An OTEL_* value as it may be shown: headers masked, credentials and query cut from URLs. */
export function redactOtelValue(name: string, value: string): string {
  if (/HEADERS$/.test(name))
    return value
      .split(',')
      .map((kv) => `${kv.split('=')[0]!.trim()}=[redacted]`)
      .join(',');
  if (/ENDPOINT$/.test(name)) {
    try {
      const u = new URL(value);
      return `${u.protocol}//${u.host}${u.pathname}`;
    } catch {
      return '(not a URL)';
    }
  }
  if (/KEY|SECRET|TOKEN|PASSWORD|CERTIFICATE/.test(name)) return '[redacted]';
  return value;
}

export function toTelemetryConfig(
  f: TelemetryFileShape,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): TelemetryConfig {
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
  const reason: TelemetryConfig['reason'] = disabled
    ? 'OTEL_SDK_DISABLED'
    : none
      ? 'OTEL_TRACES_EXPORTER=none'
      : f.enabled
        ? 'telemetry.enabled'
        : byEnv
          ? 'OTEL_TRACES_EXPORTER'
          : 'off';
  const sdkEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (k.startsWith('OTEL_') && !OWN.has(k) && v !== undefined) sdkEnv[k] = redactOtelValue(k, v);
  return {
    enabled: reason === 'telemetry.enabled' || reason === 'OTEL_TRACES_EXPORTER',
    reason,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || f.service_name,
    exporters: byEnv ? exporters.filter((e) => e !== 'none') : ['otlp'],
    sdkEnv: Object.fromEntries(Object.entries(sdkEnv).sort(([a], [b]) => a.localeCompare(b))),
  };
}

export const telemetrySection: ConfigSection<TelemetryFileShape, TelemetryConfig> = {
  key: 'telemetry',
  schema: telemetryFileSchema,
  env: { names: ['OTEL_TRACES_EXPORTER', 'OTEL_SDK_DISABLED', 'OTEL_SERVICE_NAME'] },
  build: (f, ctx, problems) => toTelemetryConfig(f, ctx.env, problems),
};
