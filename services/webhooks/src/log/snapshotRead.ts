import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';

/**
 * Runs `read` in a read-only REPEATABLE READ transaction: each of its statements sees the
 * database as of its first, so a delivery and its attempts read apart still agree. Read one
 * statement at a time on the pool, a worker's attempt committed between two of them showed
 * through: a delivery queued with 0 attempts beside its attempt 1 (a probe of the console).
 */
export function readSnapshot<T>(pool: Pool, read: (db: PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (db) => {
    await db.query('set transaction isolation level repeatable read, read only');
    return read(db);
  });
}
