export {
  createPool,
  createServicePool,
  withTransaction,
  type DatabaseSettings,
  type Pool,
  type PoolClient,
  type PoolOptions,
} from './pool';
export { SQLSTATE, sqlState, isDatabaseUnavailable, isValueRefused } from './pgErrors';
export { runMigrations } from './migrate';
export { watchDatabaseHealth } from './healthWatch';
export { rfc3339, unseenArray } from './sqlFormat';
export {
  decodeKeysetCursor,
  encodeKeysetCursor,
  isCalendarInstant,
  type KeysetPosition,
} from './keysetCursor';
export { isRealInstant } from './instant';
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
