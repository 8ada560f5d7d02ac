/**
 * The `alerts` section of the config: its file schema (composed into src/config.ts's fileSchema), the
 * typed form derived from it, SLACK_WEBHOOK_URL, and the checks a schema cannot express, run in the
 * config phase with every other problem: each rule's keys against its kind's schema (defaults
 * applied), each notifier against its kind (URL policy), `url_file` secrets read, names unique.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { schemaProblem } from '../util/schema-problem.js';
import { durationMs, durationSchema } from '../util/duration.js';
const name = { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,100}$' };
export const alertsFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        interval: { ...durationSchema, default: '30s' },
        public_url: { type: 'string', pattern: '^https?://' },
        rules: {
            type: 'array',
            default: [],
            items: {
                type: 'object',
                required: ['name', 'kind'],
                // The kind's own keys (window, threshold, …) are checked against the kind's schema below.
                additionalProperties: true,
                properties: {
                    name,
                    kind: { type: 'string', minLength: 1 },
                    for: { ...durationSchema, default: '0s' },
                    keep_firing_for: { ...durationSchema, default: '0s' },
                    repeat_interval: { ...durationSchema, default: '4h' },
                    severity: { enum: ['critical', 'warning', 'info'], default: 'warning' },
                    notify: { type: 'array', items: name, uniqueItems: true },
                },
            },
        },
        notifiers: {
            type: 'array',
            items: {
                type: 'object',
                required: ['name', 'kind'],
                // The kind's own keys (allow_any_url, labels, …) are checked against the kind's schema below.
                additionalProperties: true,
                properties: {
                    name,
                    kind: { type: 'string', minLength: 1 },
                    url: { type: 'string', minLength: 1 },
                    url_file: { type: 'string', minLength: 1 },
                },
            },
        },
        delivery: {
            type: 'object',
            additionalProperties: false,
            default: {},
            properties: {
                timeout: { ...durationSchema, default: '10s' },
                min_interval: { ...durationSchema, default: '1s' },
                min_backoff: { ...durationSchema, default: '1s' },
                max_backoff: { ...durationSchema, default: '5m' },
                give_up_after: { ...durationSchema, default: '24h' },
                poll: { ...durationSchema, default: '250ms' },
            },
        },
    },
};
const COMMON_RULE_KEYS = new Set(['name', 'kind', 'for', 'keep_firing_for', 'repeat_interval', 'severity', 'notify']);
const COMMON_NOTIFIER_KEYS = new Set(['name', 'kind', 'url', 'url_file']);
/**
 * SLACK_WEBHOOK_URL fills the url of every slack notifier that names none (neither url nor
 * url_file); with no slack notifier configured it adds one named `slack`.
 */
function applyAlertsEnv(raw, env) {
    const url = env.SLACK_WEBHOOK_URL;
    if (!url)
        return raw;
    const alerts = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
    if (alerts.notifiers !== undefined && !Array.isArray(alerts.notifiers))
        return alerts; // the schema reports it
    const list = (alerts.notifiers ?? []).map((n) => ({ ...n }));
    const slack = list.filter((n) => n && n.kind === 'slack');
    for (const n of slack)
        if (n.url === undefined && n.url_file === undefined)
            n.url = url;
    if (slack.length === 0)
        list.push({ name: 'slack', kind: 'slack', url });
    alerts.notifiers = list;
    return alerts;
}
/** The typed section; every problem a schema cannot see is added to `problems`, by its path. */
export function toAlertsConfig(f, ctx, problems) {
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
    const notifiers = (f.notifiers ?? [{ name: 'log', kind: 'log' }]).map((n, i) => toNotifier(n, i, ctx, ajv, problems));
    const names = new Set();
    notifiers.forEach((n, i) => {
        if (names.has(n.name))
            problems.push(`alerts.notifiers.${i}.name: duplicate notifier name ${n.name}`);
        names.add(n.name);
    });
    const ruleNames = new Set();
    const rules = f.rules.map((r, i) => {
        const where = `alerts.rules.${i}`;
        if (ruleNames.has(r.name))
            problems.push(`${where}.name: duplicate rule name ${r.name}`);
        ruleNames.add(r.name);
        for (const n of r.notify ?? [])
            if (!names.has(n))
                problems.push(`${where}.notify: no notifier named ${n}`);
        const params = structuredClone(Object.fromEntries(Object.entries(r).filter(([k]) => !COMMON_RULE_KEYS.has(k))));
        const kind = ctx.rules.get(r.kind);
        if (!kind)
            problems.push(`${where}.kind: unknown rule kind ${JSON.stringify(r.kind)} (known: ${[...ctx.rules.list()].sort().join(', ')})`);
        else {
            const validate = ajv.compile(kind.schema);
            if (!validate(params))
                for (const e of validate.errors ?? [])
                    problems.push(describe(where, e, 'rule kind'));
        }
        return {
            name: r.name,
            kind: r.kind,
            forMs: durationMs(r.for),
            keepFiringForMs: durationMs(r.keep_firing_for),
            repeatIntervalMs: durationMs(r.repeat_interval),
            severity: r.severity,
            ...(r.notify ? { notify: [...r.notify] } : {}),
            params,
        };
    });
    return {
        intervalMs: durationMs(f.interval),
        ...(f.public_url ? { publicUrl: f.public_url.replace(/\/+$/, '') } : {}),
        rules,
        notifiers,
        delivery: {
            timeoutMs: durationMs(f.delivery.timeout),
            minIntervalMs: durationMs(f.delivery.min_interval),
            minBackoffMs: durationMs(f.delivery.min_backoff),
            maxBackoffMs: durationMs(f.delivery.max_backoff),
            giveUpAfterMs: durationMs(f.delivery.give_up_after),
            pollMs: Math.max(10, durationMs(f.delivery.poll)),
        },
    };
}
/**
 * Resolves the URL (url, url_file), checks the kind's own keys against its schema (defaults applied)
 * and the settings against the kind; the URL is a secret: problems name the field, never its value.
 */
function toNotifier(n, i, ctx, ajv, problems) {
    const where = `alerts.notifiers.${i}`;
    const urlFile = n.url_file ? path.resolve(ctx.baseDir, n.url_file) : undefined;
    let url = n.url;
    if (n.url && n.url_file)
        problems.push(`${where}: give url or url_file, not both`);
    if (urlFile) {
        try {
            url = (ctx.readFile ?? ((f) => readFileSync(f, 'utf8')))(urlFile).trim();
            if (!url)
                problems.push(`${where}.url_file: the file is empty`);
        }
        catch (err) {
            problems.push(`${where}.url_file: cannot read it (${err.code ?? 'error'})`);
        }
    }
    const options = structuredClone(Object.fromEntries(Object.entries(n).filter(([k]) => !COMMON_NOTIFIER_KEYS.has(k))));
    const cfg = {
        name: n.name,
        kind: n.kind,
        ...(url ? { url } : {}),
        ...(urlFile ? { urlFile } : {}),
        options,
    };
    const kind = ctx.notifiers.get(n.kind);
    if (!kind) {
        problems.push(`${where}.kind: unknown notifier kind ${JSON.stringify(n.kind)} (known: ${[...ctx.notifiers.list()].sort().join(', ')})`);
        return cfg;
    }
    const validate = ajv.compile(kind.schema);
    if (!validate(options)) {
        for (const e of validate.errors ?? [])
            problems.push(describe(where, e, `notifier kind ${n.kind}`));
        return cfg;
    }
    if (kind.needsUrl && !url) {
        problems.push(`${where}: needs a url (url, url_file${n.kind === 'slack' ? ' or env SLACK_WEBHOOK_URL' : ''})`);
        return cfg;
    }
    for (const p of kind.check(notifierSettings(cfg))) {
        problems.push(typeof p === 'string' ? `${where}.${n.url_file ? 'url_file' : 'url'}: ${p}` : `${where}.${p.key}: ${p.problem}`);
    }
    return cfg;
}
export function notifierSettings(n) {
    return { name: n.name, kind: n.kind, ...(n.url ? { url: n.url } : {}), options: n.options };
}
function describe(where, e, what) {
    const at = e.instancePath ? `${where}.${e.instancePath.slice(1).replace(/\//g, '.')}` : where;
    if (e.keyword === 'additionalProperties')
        return `${at === where ? where : at}.${String(e.params.additionalProperty)}: unknown key for this ${what}`;
    return `${at}: ${schemaProblem(e)}`;
}
export const alertsSection = {
    key: 'alerts',
    schema: alertsFileSchema,
    env: { names: ['SLACK_WEBHOOK_URL'], apply: (raw, env) => applyAlertsEnv(raw, env) },
    build: (f, ctx, problems) => toAlertsConfig(f, { baseDir: ctx.baseDir, rules: ctx.kinds.rules, notifiers: ctx.kinds.notifiers }, problems),
};
//# sourceMappingURL=config.js.map