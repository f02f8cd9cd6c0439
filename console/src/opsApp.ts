import express, { type Express } from 'express';
import type { Redis } from '@brand/shared/redis';
import type { ConsoleClients } from './clients/consoleClients';
import type { ConsoleMetrics } from './observability/metrics';
import { readiness } from './observability/readiness';

/**
 * The internal operations listener (METRICS_HOST:METRICS_PORT): /metrics, /livez (the process
 * answers) and /readyz, which fails only while shutting down and names each dependency's state
 * in its body (observability/readiness.ts says why).
 */
export function createOpsApp(deps: {
  clients: ConsoleClients;
  redis: Redis;
  metrics: ConsoleMetrics;
  state: { accepting: boolean };
  /** READY_WITHOUT_RECORDS: records' absence is reported, not failing readiness. */
  readyWithoutRecords: boolean;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  app.get(['/livez', '/healthz'], (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const { ready, checks } = await readiness(deps);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });
  return app;
}
