export { createPool, withTransaction, type Pool, type PoolClient, type PoolOptions } from './pool';
export { SQLSTATE, sqlState, isDatabaseUnavailable, toAppError } from './pgErrors';
export { runMigrations } from './migrate';
