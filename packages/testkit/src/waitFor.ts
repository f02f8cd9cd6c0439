/**
 * Polls `predicate` every `intervalMs` (default 50) until it returns a truthy value, and
 * resolves with that value; fails after `timeoutMs` (default 5 s), quoting the last error
 * the predicate threw. Throwing counts as "not yet", so assertions can be polled:
 * `await waitFor(() => { expect(x).toBe(1); return true; })`.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const what = opts.what ?? 'condition';
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms${reason}`, {
        cause: lastError,
      });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
