import express, { type Express } from 'express';
import type { GatewayMetrics } from './observability/metrics';
import { readiness, type HealthDeps } from './endpoints/health/endpoint';

/**
 * The internal operations listener (METRICS_HOST:METRICS_PORT): Prometheus /metrics and
 * readiness with its checks. Kept off the public port because metrics show every route's
 * traffic across all brands and the runtime's version, and readiness names dependencies.
 */
export function createOpsApp(deps: HealthDeps & { metrics: GatewayMetrics }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  app.get('/healthz', (_req, res) => {
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
