/**
 * Gives every client of the pool an 'error' listener for its whole life. pg-pool listens only while
 * a client is idle and removes its listener on checkout, so a connection that dies while checked out
 * (the server stopped or restarted, pg_terminate_backend, a network cut) between two statements of a
 * transaction, or while a job holds a session lock, would emit an unhandled 'error' and crash the
 * process. With this, the error is reported and the next statement on that client fails — the batch
 * gets 503 and the client retries; the broken connection is destroyed on release, not pooled again.
 */
export function guardPoolClients(pool, onError) {
    pool.on('connect', (client) => {
        client.on('error', onError);
    });
    // pg-pool re-emits an idle client's error on the pool: already reported by the client's own listener.
    pool.on('error', () => { });
}
//# sourceMappingURL=pg-client-errors.js.map