import express, { type Express } from 'express';
import type { GatewayMetrics } from './observability/metrics';
import { readiness, type HealthDeps } from './ops/readiness';

/**
 * The internal operations listener (METRICS_HOST:METRICS_PORT): Prometheus /metrics, the
 * liveness probe /healthz and readiness /readyz with its checks; the Helm chart's probes and
 * compose's healthcheck use this port. Kept off the public port because metrics show every
 * route's traffic across all brands and the runtime's version, readiness names dependencies,
 * and the public port serves nothing without a key but the description file (issue 47).
 * /healthz never checks dependencies, so a database outage cannot make Kubernetes restart
 * healthy gateways.
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
