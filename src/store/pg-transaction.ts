import type pg from 'pg';

/**
 * Runs fn inside BEGIN … COMMIT on one pooled connection. On error it rolls back and rethrows; a
 * connection whose ROLLBACK fails is unusable, so it is destroyed instead of going back to the pool.
 */
export async function withTransaction<T>(client: pg.PoolClient, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const value = await fn(client);
    await client.query('COMMIT');
    return value;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}
