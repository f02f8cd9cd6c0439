import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { COMMON_HEADERS, errorResponse, ref } from './responses';

/** The description file, the probes and the metrics endpoint. */
export function registerServicePaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/openapi/service.yaml',
    operationId: 'openapi_document',
    tags: ['Service'],
    summary: 'This document',
    description:
      'Public (no key). Counted against the per-address budget for unauthenticated requests.',
    security: [],
    responses: {
      200: {
        description: 'The OpenAPI 3.1 description of the service.',
        headers: COMMON_HEADERS as ResponseConfig['headers'],
        content: { 'application/yaml': { schema: z.string() } },
      },
      429: errorResponse('`rate_limited` for this client address.', {
        'Retry-After': ref('headers', 'Retry-After'),
      }),
    },
  });
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
  const readiness = z
    .object({
      status: z.enum(['ready', 'not_ready']),
      checks: z.object({
        records: z.enum(['ok', 'unavailable']),
        redis: z.enum(['ok', 'degraded']).meta({
          description:
            'Without Redis, rate limits fall back to per-instance memory; not a readiness failure.',
        }),
        shutting_down: z.boolean(),
      }),
    })
    .meta({ id: 'Readiness' });
  registry.registerPath({
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    security: [],
    tags: ['Service'],
    summary: 'Readiness: dependencies reachable and not shutting down',
    responses: {
      200: {
        description: 'Ready to serve.',
        content: { 'application/json': { schema: readiness } },
      },
      503: { description: 'Not ready.', content: { 'application/json': { schema: readiness } } },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    security: [],
    tags: ['Service'],
    summary: 'Prometheus metrics',
    description: 'For the cluster, not for clients: expose it only inside the cluster.',
    responses: {
      200: {
        description: 'Prometheus text exposition format.',
        content: { 'text/plain': { schema: z.string() } },
      },
    },
  });
}

/** Builds the OpenAPI 3.1 document from the zod schemas that validate and shape the API. */
