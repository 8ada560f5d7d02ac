/**
 * What a token may do. Each endpoint needs one scope (src/auth/hook.ts): `ingest` POST /v1/traces,
 * `read` GET / and every /api/* read, `metrics` GET /metrics, `admin` every state-changing endpoint.
 */
export const SCOPES = ['ingest', 'read', 'metrics', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What a route declares in its config (`config: { auth: … }`): a scope, or `open` (no token needed). */
export type RouteAuth = Scope | 'open';

const BIT: Record<Scope, number> = { ingest: 1, read: 2, metrics: 4, admin: 8 };

/** Scopes as a bit set, so the per-request check is one AND. */
export function scopeBits(scopes: readonly Scope[]): number {
  let bits = 0;
  for (const s of scopes) bits |= BIT[s];
  return bits;
}

export function hasScope(bits: number, scope: Scope): boolean {
  return (bits & BIT[scope]) !== 0;
}

/** The scope a route needs when it declares none: reads need `read`, anything that changes state `admin`. */
export function defaultScope(method: string): Scope {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'admin';
}
