import type { Router } from 'express';
import type { AccessGate } from '../auth/accessGate';

/**
 * GET /openapi/service.yaml: the OpenAPI description (SPEC 4.4). Public, since a client
 * needs it before it has a key; charged to the per-address budget like any unauthenticated
 * request. The document is rendered once at startup.
 */
export function registerOpenApiDocument(
  router: Router,
  deps: { gate: AccessGate; yaml: string },
): void {
  router.get('/openapi/service.yaml', async (req, res) => {
    await deps.gate.admitAnonymous(req, res);
    res.type('application/yaml').setHeader('Cache-Control', 'public, max-age=300');
    res.send(deps.yaml);
  });
}
