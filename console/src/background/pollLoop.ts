import type { Logger } from '@brand/shared/logger';

/**
 * One turn of a background loop: claims up to a batch of work and does it; resolves to how many
 * items it claimed. `stopping()` turns true at shutdown: a turn may stop between items (what it
 * claimed and left is leased, and comes back to this replica or another).
 */
export type PollTurn = (stopping: () => boolean) => Promise<number>;

export interface PollLoop {
  /** Stops claiming and waits for the turn in flight. */
  stop(): Promise<void>;
}

/** Longest pause after failed turns (a service unreachable), doubling from `intervalMs`. */
const MAX_BACKOFF_MS = 30_000;

/**
 * Runs `turn` until stopped: again at once after a full batch (more may be waiting), else after
 * `intervalMs`. A failed turn is logged and tried again later, the pause doubling while turns
 * keep failing (up to 30 s). Never throws.
 */
export function startPollLoop(
  turn: PollTurn,
  opts: { intervalMs: number; batchSize: number; log: Logger; what: string },
): PollLoop {
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  const running = (async () => {
    let backoffMs = 0;
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await turn(() => stopped);
        backoffMs = 0;
      } catch (err) {
        backoffMs = Math.min(Math.max(backoffMs * 2, opts.intervalMs), MAX_BACKOFF_MS);
        opts.log.warn({ err, retryInMs: backoffMs }, `${opts.what}: a turn failed; trying again`);
      }
      if (!stopped && (backoffMs > 0 || claimed < opts.batchSize)) {
        await pause(backoffMs || opts.intervalMs);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await running;
    },
  };
}
