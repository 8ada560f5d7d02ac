/**
 * What a token may do. Each endpoint needs one scope (src/auth/hook.ts): `ingest` POST /v1/traces,
 * `read` GET / and every /api/* read, `metrics` GET /metrics, `admin` every state-changing endpoint —
 * but POST /api/feedback, which `admin` or `ingest` may send (agents report their users' feedback).
 */
export const SCOPES = ['ingest', 'read', 'metrics', 'admin'];
const BIT = { ingest: 1, read: 2, metrics: 4, admin: 8 };
/** Scopes as a bit set, so the per-request check is one AND. */
export function scopeBits(scopes) {
    let bits = 0;
    for (const s of scopes)
        bits |= BIT[s];
    return bits;
}
/** Whether a token's bits hold any of a route's scopes (both as bit sets: one AND per request). */
export function hasAnyScope(bits, anyOf) {
    return (bits & anyOf) !== 0;
}
/** The scope a route needs when it declares none: reads need `read`, anything that changes state `admin`. */
export function defaultScope(method) {
    return method === 'GET' || method === 'HEAD' ? 'read' : 'admin';
}
//# sourceMappingURL=scopes.js.map