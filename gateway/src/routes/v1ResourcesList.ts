import type { Router } from 'express';
import { AppError } from '@brand/shared/errors';
import { isResourceName, RESOURCES } from '@brand/shared/resources';
import type { AccessGate } from '../auth/accessGate';
import { rateLimitedError } from '../auth/accessGate';
import type { RecordsApi } from '../clients/recordsClient';
import { methodNotAllowed } from '../http/methodNotAllowed';
import { requestIdOf } from '../http/requestId';
import { ListQuery, parseListParams } from '../records/listParams';
import { listPage } from '../records/listPage';

/**
 * GET /api/v1/{resource}: one page of the brand's records (SPEC 4.1).
 * Order of checks, by design: authentication and the brand's rate limit come first, so
 * an unauthenticated caller gets 401 for any path under /api/v1 (the resource names are
 * public in the OpenAPI file anyway) and every authenticated request counts, then
 * 404 unknown_resource, then parameter validation.
 */
export function registerV1ResourcesList(
  router: Router,
  deps: { gate: AccessGate; records: RecordsApi },
): void {
  router.get('/api/v1/:resource', async (req, res) => {
    const { identity, decision } = await deps.gate.admit(req, res);
    if (!decision.allowed) throw rateLimitedError(decision);
    const resource = req.params.resource;
    if (!isResourceName(resource)) {
      throw new AppError(
        'unknown_resource',
        `Unknown resource "${resource}"; the resources are ${RESOURCES.join(', ')}.`,
      );
    }
    const params = parseListParams(ListQuery, req.query);
    res.json(await listPage(deps.records, identity, resource, params, requestIdOf(res)));
  });
  router.all('/api/v1/:resource', methodNotAllowed(['GET', 'HEAD']));
}
