/**
 * `toolwatch config check`: the effective configuration — the file with every default filled in and
 * every environment override applied, rule kinds' defaults included — as YAML, with every secret
 * redacted: webhook URLs cut to scheme and host, passwords in URLs, values under secret-like keys,
 * and the secrets that only come from the environment or a `*_file` (shown as set, never their value).
 */
import { stringify } from 'yaml';
import { redactUrl } from './alerts/notifiers/url-guard.js';
import { CONFIG_ENV } from './config.js';
const REDACTED = '[redacted]';
/** Keys whose values are secrets wherever they appear (future sections included). */
const SECRET_KEY = /(secret|token|password|passwd|api_?key|credential|private_?key)/i;
/** Keys that name where a secret comes from (a variable or a file), never the secret itself. */
const SECRET_SOURCE_KEY = /_(env|file)$/;
/** Environment variables whose values are secrets: shown as set, never shown. */
const SECRET_ENV = new Set(['SLACK_WEBHOOK_URL', 'JUDGE_API_KEY', 'LANGFUSE_SECRET_KEY', 'DATABASE_URL']);
/** A URL with its password (and user) masked; anything else unchanged. */
function maskCredentials(value) {
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/\s]*@/i.test(value))
        return value;
    try {
        const u = new URL(value);
        if (u.password)
            u.password = REDACTED;
        return u.toString();
    }
    catch {
        return REDACTED;
    }
}
function redact(value, path) {
    const key = path.at(-1) ?? '';
    if (typeof value === 'string') {
        if (SECRET_KEY.test(key) && !SECRET_SOURCE_KEY.test(key))
            return REDACTED;
        // Webhook URLs carry their secret in the path: scheme and host only (url_file paths are fine to show).
        if (path[0] === 'alerts' && path[1] === 'notifiers' && key === 'url')
            return redactUrl(value);
        return maskCredentials(value);
    }
    if (Array.isArray(value))
        return value.map((v, i) => redact(v, [...path, String(i)]));
    if (value && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, [...path, k])]));
    return value;
}
/** The effective file: rules with their kind's defaults applied, as the evaluator runs them. */
function effectiveFile(loaded) {
    const file = structuredClone(loaded.file);
    const alerts = file.alerts;
    if (alerts?.rules)
        alerts.rules = alerts.rules.map((r, i) => ({ ...r, ...loaded.config.alerts.rules[i]?.params }));
    // Without any, one `log` notifier runs: show it.
    if (alerts && !alerts.notifiers)
        alerts.notifiers = loaded.config.alerts.notifiers.map((n) => ({ name: n.name, kind: n.kind }));
    return file;
}
/** What `toolwatch config check` prints for a valid configuration. */
export function effectiveConfigText(loaded, env) {
    const { config } = loaded;
    // The variables the loader reads, and the ones auth.tokens names (token_env): tokens are secrets.
    const tokenEnv = config.auth.tokens.flatMap((t) => (t.source.kind === 'env' ? [t.source.variable] : []));
    const secretEnv = new Set([...SECRET_ENV, ...tokenEnv]);
    const set = [...new Set([...CONFIG_ENV, ...tokenEnv])].filter((name) => env[name] !== undefined && env[name] !== '');
    const t = config.telemetry;
    const sdkEnv = Object.entries(t.sdkEnv).map(([k, v]) => `${k}=${v}`);
    const lines = [
        '# toolwatch: the configuration is valid. Effective values (defaults filled in, environment applied):',
        `# config file: ${config.configPath ?? '(none: built-in defaults)'}`,
        `# environment read: ${set.length ? set.map((n) => (secretEnv.has(n) ? `${n} (set)` : `${n}=${env[n]}`)).join(', ') : '(none)'}`,
        `# self-telemetry: ${t.enabled ? `on (${t.reason}), exporters ${t.exporters.join(', ')}, service.name ${t.serviceName}` : `off (${t.reason === 'off' ? 'the default' : t.reason})`}`,
        ...(sdkEnv.length ? [`# read by the OpenTelemetry SDK itself: ${sdkEnv.join(', ')}`] : []),
        '# secrets are shown as [redacted], webhook URLs as scheme and host; secrets from the environment or a *_file are not shown.',
    ];
    return `${lines.join('\n')}\n${stringify(redact(effectiveFile(loaded), []), { lineWidth: 0 })}`;
}
//# sourceMappingURL=config-check.js.map