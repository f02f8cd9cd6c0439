/** Waits `ms`, or rejects with the signal's reason (an AbortError by default) as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abortReason = (): Error => signal?.reason as Error;
    if (signal?.aborted) {
      reject(abortReason());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
