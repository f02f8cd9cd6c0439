// @brand-records/client/checkpoint-file (Node.js only): a follower's checkpoint in a file,
// locked so that one checkpoint has one follower. Explicit named exports only.
export { openCheckpointFile, type CheckpointFile } from './checkpointFile.js';
export { CheckpointLockedError, CheckpointLockLostError, type LockHolder } from './fileLock.js';
