/**
 * The `auth:` section: API tokens with scopes and optional service globs, and the safe default
 * (no tokens → loopback only). Token values never live in the config file: each token names a file
 * (`token_file`, re-read on SIGHUP) or an environment variable (`token_env`, read here, by the one
 * config loader). The typed config keeps only the file path or the variable's name — an env value is
 * held as a Secret, which prints as `[secret]` — so printing the config shows no token.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SCOPES } from './scopes.js';
import { Secret } from './secret.js';
/** Shorter tokens are refused: a token is the only thing between the network and the data. */
export const MIN_TOKEN_LENGTH = 16;
export const authFileSchema = {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
        tokens: {
            type: 'array',
            default: [],
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['name', 'scopes'],
                properties: {
                    name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' },
                    token_file: { type: 'string', minLength: 1 },
                    token_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
                    scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...SCOPES] } },
                    services: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1, maxLength: 200 } },
                },
            },
        },
        // The escape hatch: serve on a non-loopback address without tokens (behind a proxy that authenticates).
        allow_unauthenticated: { type: 'boolean', default: false },
    },
};
/** Reads one token from its source; the problem, worded for the config phase and the SIGHUP log. */
export function readToken(source) {
    let raw;
    if (source.kind === 'env')
        raw = source.value.reveal();
    else {
        try {
            raw = readFileSync(source.path, 'utf8');
        }
        catch (err) {
            return {
                ok: false,
                problem: `token_file ${source.path} cannot be read (${err.code ?? err.message})`,
            };
        }
    }
    // A file usually ends with a newline (echo, kubectl create secret --from-file): not part of the token.
    const token = raw.trim();
    const where = source.kind === 'env' ? `token_env ${source.variable}` : `token_file ${source.path}`;
    if (token === '')
        return { ok: false, problem: `${where} is empty` };
    if (token.length < MIN_TOKEN_LENGTH) {
        return {
            ok: false,
            problem: `${where}: the token has ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} (e.g. openssl rand -hex 32)`,
        };
    }
    // What an Authorization header can carry: printable ASCII, no spaces.
    if (!/^[\x21-\x7e]+$/.test(token))
        return { ok: false, problem: `${where}: the token may hold only printable ASCII characters without spaces` };
    return { ok: true, token };
}
/** The typed section; every token is read once here so a missing file or variable is reported with everything else. */
export function toAuthConfig(f, ctx, problems) {
    const tokens = [];
    const names = new Set();
    const owners = new Map();
    f.tokens.forEach((t, i) => {
        const at = `auth.tokens.${i} (${t.name})`;
        if (names.has(t.name))
            problems.push(`${at}: the name is used by another token`);
        names.add(t.name);
        if ((t.token_file === undefined) === (t.token_env === undefined)) {
            problems.push(`${at}: set exactly one of token_file and token_env (the token itself never goes in this file)`);
            return;
        }
        if (t.services && (t.scopes.includes('metrics') || t.scopes.includes('admin'))) {
            problems.push(`${at}: services restricts ingest and read only; a token with the metrics or admin scope sees every service — give those a token of their own`);
        }
        let source;
        if (t.token_file !== undefined)
            source = { kind: 'file', path: path.resolve(ctx.baseDir, t.token_file) };
        else {
            const value = ctx.env[t.token_env];
            if (value === undefined) {
                problems.push(`${at}: token_env ${t.token_env} is not set`);
                return;
            }
            source = { kind: 'env', variable: t.token_env, value: new Secret(value) };
        }
        const read = readToken(source);
        if (!read.ok) {
            problems.push(`${at}: ${read.problem}`);
            return;
        }
        const other = owners.get(read.token);
        if (other !== undefined)
            problems.push(`${at}: the same token as ${other}; every token must be distinct, or a request could not be told apart`);
        owners.set(read.token, t.name);
        tokens.push({ name: t.name, source, scopes: [...t.scopes], ...(t.services ? { services: [...t.services] } : {}) });
    });
    return { tokens, allowUnauthenticated: f.allow_unauthenticated };
}
/** 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`: reachable from this machine only. */
export function isLoopback(host) {
    const h = host
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, '');
    if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1')
        return true;
    const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
    return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
/**
 * The safe default, as Redis' protected mode: without tokens toolwatch serves on a loopback address
 * only. Anywhere else it refuses to start unless auth.allow_unauthenticated says someone else guards it.
 */
export function checkExposure(host, auth) {
    // `tokens` counts the entries configured: one that cannot be read is reported on its own.
    if (auth.tokens > 0 || auth.allowUnauthenticated || isLoopback(host))
        return [];
    return [
        `server.host: ${host} is reachable from other machines, and auth.tokens is empty: anyone who reaches the port ` +
            'could read stored arguments and write spans. Set auth.tokens (see docs/operations.md, Security), or listen on 127.0.0.1, ' +
            'or set auth.allow_unauthenticated: true if a proxy in front of toolwatch authenticates every request',
    ];
}
/** A `token_env` names a variable of the user's choosing: read through `ctx.env`, listed by no `env.names`. */
export const authSection = {
    key: 'auth',
    schema: authFileSchema,
    build: (f, ctx, problems) => toAuthConfig(f, ctx, problems),
};
//# sourceMappingURL=config.js.map