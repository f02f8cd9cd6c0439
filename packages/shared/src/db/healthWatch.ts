import { connectionProblemOf } from '../errors/connectionProblem';
import type { Pool } from './pool';
import type { Logger } from '../logger';

/**
 * Probes the database now and every `intervalMs`, reporting each change of state (first
 * result included): ok, or why not in readiness's words ("unreachable", "authentication
 * failed", "tls: server certificate not trusted (...)"). Returns a function that stops probing.
 */
export function watchDatabaseHealth(
  deps: { pool: Pool; log: Logger; intervalMs: number },
  onChange: (ok: boolean, state: string) => void,
): () => void {
  let last: string | undefined;
  let stopped = false;
  const probe = async (): Promise<void> => {
    const state = await deps.pool.query('select 1').then(
      () => 'ok',
      (err: unknown) => connectionProblemOf(err) ?? 'unreachable',
    );
    if (stopped || state === last) return;
    const ok = state === 'ok';
    if (last !== undefined || !ok)
      deps.log[ok ? 'info' : 'warn'](
        { database: ok ? 'reachable' : state },
        'database health changed',
      );
    last = state;
    onChange(ok, state);
  };
  void probe();
  const timer = setInterval(() => void probe(), deps.intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
