export {
  createPool,
  createServicePool,
  withTransaction,
  type DatabaseSettings,
  type Pool,
  type PoolClient,
  type PoolOptions,
} from './pool';
export { SQLSTATE, sqlState, isDatabaseUnavailable } from './pgErrors';
export { runMigrations } from './migrate';
export { watchDatabaseHealth } from './healthWatch';
export { rfc3339, unseenArray } from './sqlFormat';
export { decodeKeysetCursor, encodeKeysetCursor, type KeysetPosition } from './keysetCursor';
export { runMigrationProcess } from './migrationProcess';
export {
  analyzeChangedPartitions,
  dropTimePartitionsBefore,
  ensureTimePartitions,
  listTimePartitions,
  type TimePartitionedTable,
  type TimePartition,
} from './timePartitions';
export {
  checkDatabaseTls,
  pgConnection,
  type DatabaseTlsSettings,
  type PgConnection,
} from './tlsOptions';
