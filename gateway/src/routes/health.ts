import type { Router } from 'express';
import type { RecordsApi } from '../clients/recordsClient';
import type { Redis } from '@brand/shared/redis';

export interface HealthState {
  /** False once shutdown has begun, so balancers stop routing here before the listener closes. */
  accepting: boolean;
}

/**
 * GET /healthz: the process is alive (the liveness probe; it never checks dependencies,
 * so a database outage cannot make Kubernetes restart healthy gateways).
 * GET /readyz: the gateway can serve: not shutting down and the records service reports
 * SERVING. Redis is reported but does not fail readiness: without it the gateway still
 * serves, rate-limited per instance.
 */
export function registerHealth(
  router: Router,
  deps: { records: RecordsApi; redis: Redis; state: HealthState },
): void {
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const records = await deps.records.health();
    const checks = {
      records: records === 'SERVING' ? 'ok' : 'unavailable',
      redis: deps.redis.status === 'ready' ? 'ok' : 'degraded',
      shutting_down: !deps.state.accepting,
    };
    const ready = deps.state.accepting && records === 'SERVING';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
}
