import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { redisProblemOf, type Redis } from '@brand/shared/redis';
import type { PlansApi } from '../../clients/plansClient';
import type { RecordsApi } from '../../clients/recordsClient';
import type { Endpoint } from '../endpoint';

export interface HealthState {
  /** False once shutdown has begun, so balancers stop routing here before the listener closes. */
  accepting: boolean;
}

export interface HealthDeps {
  records: RecordsApi;
  plans: PlansApi;
  redis: Redis;
  state: HealthState;
}

/** Readiness with the reason for each dependency; only the internal listener shows the checks. */
export async function readiness(deps: HealthDeps): Promise<{
  ready: boolean;
  checks: {
    records: 'ok' | 'unavailable';
    plans: 'ok' | 'degraded';
    /** "degraded", with the reason when the server refused us ("degraded: tls: ..."). */
    redis: string;
    shutting_down: boolean;
  };
}> {
  const [records, plans] = await Promise.all([deps.records.health(), deps.plans.health()]);
  const checks = {
    records: records === 'SERVING' ? ('ok' as const) : ('unavailable' as const),
    // Reported, never failing readiness: without plans the gateway still serves every read;
    // plan preparation alone answers 503 until the plans service is back.
    plans: plans === 'SERVING' ? ('ok' as const) : ('degraded' as const),
    redis:
      deps.redis.status === 'ready' ? 'ok' : withReason('degraded', redisProblemOf(deps.redis)),
    shutting_down: !deps.state.accepting,
  };
  return { ready: deps.state.accepting && records === 'SERVING', checks };
}

/** "degraded" or "degraded: tls: server certificate not trusted (...)". */
function withReason(state: string, reason: string | undefined): string {
  return reason ? `${state}: ${reason}` : state;
}

/**
 * GET /healthz: the process is alive (the liveness probe; it never checks dependencies,
 * so a database outage cannot make Kubernetes restart healthy gateways).
 * GET /readyz: the gateway can serve: not shutting down and the records service reports
 * SERVING. Redis does not fail readiness: without it the gateway still serves,
 * rate-limited per instance. The public listener says only ready or not; which dependency
 * failed is shown on the internal listener (opsApp), not to the internet.
 */
export function healthEndpoint(deps: HealthDeps): Endpoint {
  return { mount: (router) => mountHealth(router, deps) };
}

function mountHealth(router: Router, deps: HealthDeps): void {
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const { ready } = await readiness(deps);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready' });
  });
}

const Readiness = z.object({ status: z.enum(['ready', 'not_ready']) }).meta({ id: 'Readiness' });

export function describeHealth(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    operationId: 'healthz',
    security: [],
    tags: ['Service'],
    summary: 'Liveness: the process is up',
    responses: {
      200: {
        description: 'Alive.',
        content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } },
      },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    security: [],
    tags: ['Service'],
    summary: 'Readiness: dependencies reachable and not shutting down',
    description:
      'Only ready or not: which dependency failed is reported on the internal operations port, never publicly.',
    responses: {
      200: {
        description: 'Ready to serve.',
        content: { 'application/json': { schema: Readiness } },
      },
      503: { description: 'Not ready.', content: { 'application/json': { schema: Readiness } } },
    },
  });
}
