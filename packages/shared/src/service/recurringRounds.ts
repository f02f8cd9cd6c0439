import type { Logger } from '../logger';

/** A background job's rounds, started: stop() clears the timer and waits for a round under way. */
export interface RecurringRounds {
  stop(): Promise<void>;
}

/**
 * Runs `round` every `everyMs`, one at a time (a tick that finds the last round still running
 * skips), logging a failed round and trying again at the next tick. The timer never keeps the
 * process alive. For a service's periodic re-checks, whose claims (SKIP LOCKED) let replicas
 * share the work.
 */
export function startRecurringRounds(
  round: () => Promise<unknown>,
  opts: { everyMs: number; log: Logger; what: string },
): RecurringRounds {
  let current: Promise<unknown> = Promise.resolve();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    current = round()
      .catch((err: unknown) => opts.log.warn({ err }, `${opts.what} failed; retried next round`))
      .finally(() => {
        running = false;
      });
  }, opts.everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await current;
    },
  };
}
