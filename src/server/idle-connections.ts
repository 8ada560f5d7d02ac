/**
 * Closes connections that stay silent: one that connects and never sends a byte holds a descriptor
 * for ever otherwise — Node's header and request deadlines start only with a request's first byte,
 * and with them set the server's own socket timeout no longer closes anything. A connection with a
 * request being answered is never cut here (a batch may wait for the store longer than it sends or
 * receives anything); those are bounded by the request deadlines and the body's pace.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export function closeIdleConnections(app: FastifyInstance, idleMs: number): void {
  if (idleMs <= 0) return;
  const answering = new WeakMap<Socket, number>();
  const change = (socket: Socket | undefined, by: number) => {
    if (!socket) return;
    const n = (answering.get(socket) ?? 0) + by;
    if (n <= 0) answering.delete(socket);
    else answering.set(socket, n);
  };
  app.server.on('connection', (socket: Socket) => {
    socket.setTimeout(idleMs, () => {
      if (!answering.has(socket)) socket.destroy();
    });
  });
  app.addHook('onRequest', async (req) => change(req.raw.socket, 1));
  app.addHook('onResponse', async (req) => change(req.raw.socket, -1));
  app.addHook('onRequestAbort', async (req) => change(req.raw.socket, -1));
}
