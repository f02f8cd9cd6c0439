/**
 * A mistake in how brandctl was called (a flag's value, an environment variable, a file it
 * names): reported like commander's own usage errors, exit code 2, before any call is made.
 * Its message names where the bad value came from and never repeats a secret.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}
