import type { KeyObject } from 'node:crypto';
import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import type { SignInRateLimit } from './signInRateLimit';

/** What signing in and sessions need; the durations come from config (docs/console.md). */
export interface SessionDeps {
  pool: Pool;
  log: Logger;
  rateLimit: SignInRateLimit;
  /** Signs member assertions; without it, resolving a session for a brand is refused. */
  assertionKey: KeyObject | undefined;
  /** Sign-in links expire after this long (15 minutes). */
  linkTtlMs: number;
  /** One address is mailed at most one link per this long, whoever asks (one minute). */
  mailSpacingMs: number;
  /** What the spacing grows to while the address's links go unused (15 minutes). */
  mailSpacingMaxMs: number;
  /** A claimed mail not confirmed sent within this long is claimed again (one minute). */
  mailLeaseMs: number;
  /** Sessions end after this long without a request (30 minutes, sliding). */
  idleMs: number;
  /** Sessions end this long after sign-in whatever happens (12 hours). */
  maxAgeMs: number;
}
