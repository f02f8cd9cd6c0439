/** Pauses between tries: 0.1, 0.2, 0.4 ... seconds, capped at 2 s. */
const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 2_000;

export interface RetryRecordingOptions {
  /** No try starts after this instant (epoch ms): the last failure is thrown instead. */
  giveUpAt: number;
  /** True once the worker gave up on its in-flight attempts (shutdown): stop at once. */
  abandoned: () => boolean;
  /** Told about each failure that will be tried again, and the pause before it. */
  onRetry: (err: unknown, pauseMs: number) => void;
  /** Waits `ms`; setTimeout unless a test passes its own clock. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Runs `record` (the recording of an attempt's outcome, one transaction) until it succeeds,
 * trying again after a failure while there is time before `giveUpAt`. Under load the worker's
 * attempts can outnumber the pool's connections, and a pool wait that times out, a lost
 * connection or a deadlock would otherwise leave a receiver's answer unrecorded: the lease
 * would run out and the receiver would get the same attempt again, late. A failed try rolled
 * back, so trying again writes nothing twice.
 */
export async function retryRecording<T>(
  record: () => Promise<T>,
  opts: RetryRecordingOptions,
): Promise<T> {
  const sleep = opts.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      return await record();
    } catch (err) {
      if (opts.abandoned() || now() + pause >= opts.giveUpAt) throw err;
      opts.onRetry(err, pause);
      await sleep(pause);
    }
  }
}
