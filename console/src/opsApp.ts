import express, { type Express } from 'express';
import type { ConsoleClients } from './clients/consoleClients';
import type { ConsoleMetrics } from './observability/metrics';
import { redisProblemOf, type Redis } from '@brand/shared/redis';

/** "unavailable", with the reason when the server refused us ("unavailable: tls: ..."). */
function redisState(redis: Redis): string {
  const reason = redisProblemOf(redis);
  return reason ? `unavailable: ${reason}` : 'unavailable';
}

/**
 * The internal operations listener (METRICS_HOST:METRICS_PORT): /metrics, /livez (the process
 * answers) and /readyz (records answers, Redis is connected, not shutting down). Records is
 * required: without it nobody can sign in or be resolved. Webhooks and plans are reported,
 * not required: the other pages keep working while one of them is away.
 */
export function createOpsApp(deps: {
  clients: ConsoleClients;
  redis: Redis;
  metrics: ConsoleMetrics;
  state: { accepting: boolean };
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
    const services = await deps.clients.health();
    const checks = {
      records: services.records === 'SERVING' ? 'ok' : 'unavailable',
      webhooks: services.webhooks === 'SERVING' ? 'ok' : 'degraded',
      plans: services.plans === 'SERVING' ? 'ok' : 'degraded',
      redis: deps.redis.status === 'ready' ? 'ok' : redisState(deps.redis),
      shutting_down: !deps.state.accepting,
    };
    const ready = deps.state.accepting && checks.records === 'ok' && checks.redis === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });
  return app;
}
