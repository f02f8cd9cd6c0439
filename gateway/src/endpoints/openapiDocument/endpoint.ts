import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import type { AccessGate } from '../../auth/accessGate';
import { methodNotAllowed } from '../../http/methodNotAllowed';
import { COMMON_HEADERS, errorResponse, ref } from '../../openapi/responses';
import type { Endpoint } from '../endpoint';

/**
 * GET /openapi/service.yaml: the OpenAPI description (docs/contract.md#openapi-document), other methods 405. Public, since a client
 * needs it before it has a key; charged to the per-address budget like any unauthenticated
 * request. The document is rendered once, on the first request for it (main.ts, from what the
 * endpoints register: describeEndpoints.ts), so no process start pays for it.
 */
export function openApiDocumentEndpoint(deps: { gate: AccessGate; yaml: () => string }): Endpoint {
  return { mount: (router) => mountOpenApiDocument(router, deps) };
}

function mountOpenApiDocument(
  router: Router,
  deps: { gate: AccessGate; yaml: () => string },
): void {
  router.get('/openapi/service.yaml', async (req, res) => {
    await deps.gate.admitAnonymous(req, res);
    res.type('application/yaml').setHeader('Cache-Control', 'public, max-age=300');
    res.send(deps.yaml());
  });
  // Every other method 405 with Allow, as the API's read routes answer them (OPTIONS included:
  // express's own answer was 200 text/plain, and POST or PUT fell through to 404).
  router.all('/openapi/service.yaml', methodNotAllowed(['GET', 'HEAD']));
}

export function describeOpenApiDocument(registry: OpenAPIRegistry): void {
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
}
