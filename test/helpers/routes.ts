/** The routes an app registers, as method + path (read from Fastify's own route tree). */
import type { FastifyInstance } from 'fastify';

export interface Route {
  method: string;
  path: string;
}

/**
 * Every method + path route, HEAD included. printRoutes draws the radix tree — each node a piece of
 * the path after its parent's (`└── api/` then `    ├── failures (GET, HEAD)`) — so a route's path
 * is its ancestors' pieces joined.
 */
export function registeredRoutes(app: FastifyInstance): Route[] {
  const out: Route[] = [];
  const pieces: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const m = /^(.*?)[└├]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    pieces.length = depth;
    pieces.push(m[2]!);
    if (m[3]) for (const method of m[3].split(', ')) out.push({ method, path: pieces.join('') });
  }
  return out;
}
