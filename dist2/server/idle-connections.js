export function closeIdleConnections(app, idleMs) {
    if (idleMs <= 0)
        return;
    const answering = new WeakMap();
    const change = (socket, by) => {
        if (!socket)
            return;
        const n = (answering.get(socket) ?? 0) + by;
        if (n <= 0)
            answering.delete(socket);
        else
            answering.set(socket, n);
    };
    app.server.on('connection', (socket) => {
        socket.setTimeout(idleMs, () => {
            if (!answering.has(socket))
                socket.destroy();
        });
    });
    app.addHook('onRequest', async (req) => change(req.raw.socket, 1));
    app.addHook('onResponse', async (req) => change(req.raw.socket, -1));
    app.addHook('onRequestAbort', async (req) => change(req.raw.socket, -1));
}
//# sourceMappingURL=idle-connections.js.map