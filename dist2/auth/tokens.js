/**
 * The tokens in force and the per-request check. A request's token is hashed once (SHA-256) and
 * compared with every configured token's hash with timingSafeEqual, without stopping at a match, so
 * the time taken says nothing about which token, or how much of one, matched. Nothing is parsed but
 * the Authorization header itself; the principals are built once, at load.
 *
 * Token files are re-read by reload() (SIGHUP): all or nothing — if any token cannot be read, the
 * tokens in force stay, and the problems are returned for the log.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { EVERY_SERVICE, servicesView } from '../util/service-view.js';
import { readToken } from './config.js';
import { scopeBits } from './scopes.js';
/** What a request is when no tokens are configured (loopback, or allow_unauthenticated). */
export const UNRESTRICTED = Object.freeze({
    name: 'anonymous',
    scopes: scopeBits(['ingest', 'read', 'metrics', 'admin']),
    view: EVERY_SERVICE,
});
const digestOf = (token) => createHash('sha256').update(token).digest();
export class TokenSet {
    cfg;
    entries = [];
    constructor(cfg) {
        this.cfg = cfg;
        const loaded = this.load();
        // loadConfig read every token already; failing here means a file changed in between.
        if (!loaded.ok)
            throw new Error(`auth tokens changed since the config was checked: ${loaded.problems.join('; ')}`);
        this.entries = loaded.entries;
    }
    /** False when no tokens are configured: every request is let through (see checkExposure). */
    get enabled() {
        return this.cfg.tokens.length > 0;
    }
    /** The configured token names (the API and logs show names, never values). */
    get names() {
        return this.cfg.tokens.map((t) => t.name);
    }
    /** Re-reads every token; the new set replaces the old only if all of them could be read. */
    reload() {
        const loaded = this.load();
        if (!loaded.ok)
            return loaded;
        this.entries = loaded.entries;
        return { ok: true, tokens: loaded.entries.length };
    }
    /** The principal of an `Authorization: Bearer <token>` (or Basic, the token as password) header. */
    authenticate(header) {
        const token = tokenOf(header);
        if (token === undefined)
            return { ok: false, reason: 'missing_token' };
        const digest = digestOf(token);
        let found;
        for (const e of this.entries)
            if (timingSafeEqual(e.digest, digest) && !found)
                found = e.principal;
        return found ? { ok: true, principal: found } : { ok: false, reason: 'invalid_token' };
    }
    load() {
        const problems = [];
        const entries = [];
        const seen = new Map();
        for (const t of this.cfg.tokens) {
            const read = readToken(t.source);
            if (!read.ok) {
                problems.push(`auth token ${t.name}: ${read.problem}`);
                continue;
            }
            const other = seen.get(read.token);
            if (other !== undefined)
                problems.push(`auth token ${t.name}: the same token as ${other}`);
            seen.set(read.token, t.name);
            const principal = Object.freeze({
                name: t.name,
                scopes: scopeBits(t.scopes),
                view: t.services ? servicesView(t.services) : EVERY_SERVICE,
            });
            entries.push({ digest: digestOf(read.token), principal });
        }
        return problems.length ? { ok: false, problems } : { ok: true, entries };
    }
}
/**
 * The token in an Authorization header: `Bearer <token>` (OTLP exporters, Prometheus, curl), or
 * `Basic base64(user:token)` — what a browser sends after its login prompt, for the built-in page; the
 * user name is ignored. The scheme is case-insensitive (RFC 9110).
 */
export function tokenOf(header) {
    if (!header)
        return undefined;
    const space = header.indexOf(' ');
    if (space < 0)
        return undefined;
    const scheme = header.slice(0, space).toLowerCase();
    const rest = header.slice(space + 1).trim();
    if (rest === '')
        return undefined;
    if (scheme === 'bearer')
        return rest;
    if (scheme !== 'basic')
        return undefined;
    const decoded = Buffer.from(rest, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : undefined;
}
//# sourceMappingURL=tokens.js.map