/**
 * Runs fn inside BEGIN … COMMIT on one pooled connection. On error it rolls back and rethrows; a
 * connection whose ROLLBACK fails is unusable, so it is destroyed instead of going back to the pool.
 */
export async function withTransaction(client, fn) {
    let broken;
    try {
        await client.query('BEGIN');
        const value = await fn(client);
        await client.query('COMMIT');
        return value;
    }
    catch (err) {
        await client.query('ROLLBACK').catch((e) => (broken = e));
        throw err;
    }
    finally {
        client.release(broken);
    }
}
//# sourceMappingURL=pg-transaction.js.map