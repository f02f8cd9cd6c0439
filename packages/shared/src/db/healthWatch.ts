import type { Pool } from './pool';
import type { Logger } from '../logger';

/**
 * Probes the database now and every `intervalMs`, reporting each change of reachability
 * (first result included). Returns a function that stops probing.
 */
export function watchDatabaseHealth(
  deps: { pool: Pool; log: Logger; intervalMs: number },
  onChange: (ok: boolean) => void,
): () => void {
  let last: boolean | undefined;
  let stopped = false;
  const probe = async (): Promise<void> => {
    const ok = await deps.pool.query('select 1').then(
      () => true,
      () => false,
    );
    if (stopped || ok === last) return;
    if (last !== undefined || !ok)
      deps.log[ok ? 'info' : 'warn'](
        { database: ok ? 'reachable' : 'unreachable' },
        'database health changed',
      );
    last = ok;
    onChange(ok);
  };
  void probe();
  const timer = setInterval(() => void probe(), deps.intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
