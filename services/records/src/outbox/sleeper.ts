/** An interruptible wait: the relay sleeps between polls and a NOTIFY or shutdown ends it. */
export interface Sleeper {
  /** Resolves after `ms`, or earlier on cancel(), or on wake() when `wakeable`. */
  sleep(ms: number, opts: { wakeable: boolean }): Promise<void>;
  /** Ends a wakeable sleep; a wake() while not sleeping makes the next wakeable sleep return at once. */
  wake(): void;
  /** Ends any sleep now and every later one immediately (shutdown). */
  cancel(): void;
}

export function createSleeper(): Sleeper {
  let pendingWake = false;
  let cancelled = false;
  let current: { resolve: () => void; wakeable: boolean } | undefined;
  return {
    sleep(ms, opts) {
      if (cancelled) return Promise.resolve();
      if (opts.wakeable && pendingWake) {
        pendingWake = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          current = undefined;
          resolve();
        }
        current = { resolve: done, wakeable: opts.wakeable };
      });
    },
    wake() {
      if (current?.wakeable) {
        pendingWake = false;
        current.resolve();
      } else {
        pendingWake = true;
      }
    },
    cancel() {
      cancelled = true;
      current?.resolve();
    },
  };
}
