import type { Logger } from '../logger';
import type { Redis } from '../redis';
import type { ChangeVersion } from './keys';
import { publishInChunks } from './publish';

export interface ChangeVersionSweepOptions {
  redis: Redis;
  keyPrefix: string;
  log: Logger;
  /** How often; 0 turns the sweep off. */
  everyMs: number;
  /** The versions that changed recently, read from the database that holds them. */
  recent: () => Promise<readonly ChangeVersion[]>;
  /** What the logs call them ("change versions", "events feed versions"). */
  label: string;
}

/**
 * Re-publishes the versions changed recently, every `everyMs`: a publish lost between a commit
 * and its SET (the process died, Redis timed out or was failing over) reaches Redis within one
 * sweep, so no client is answered 304 for long while a newer page exists. Publishing never
 * moves a key back (publishChangeVersions), so a sweep cannot undo a newer publish. Logs the
 * first failure of a run of them and the recovery, not every one. Answers the stop function.
 */
export function startChangeVersionSweep(opts: ChangeVersionSweepOptions): () => void {
  let sweeping = false;
  let failing = false;
  const sweep = async (): Promise<void> => {
    if (sweeping) return;
    sweeping = true;
    try {
      await publishInChunks(opts.redis, opts.keyPrefix, await opts.recent());
      if (failing) opts.log.info(`${opts.label} published again`);
      failing = false;
    } catch (err) {
      if (!failing) opts.log.warn({ err }, `${opts.label} sweep failed; retrying`);
      failing = true;
    } finally {
      sweeping = false;
    }
  };
  if (opts.everyMs <= 0) return () => undefined;
  const timer = setInterval(() => void sweep(), opts.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
