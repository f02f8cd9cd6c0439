import type { Router } from 'express';
import type { AccessGate } from '../../auth/accessGate';
import type { RecordsApi } from '../../clients/recordsClient';
import { methodNotAllowed } from '../../http/methodNotAllowed';
import { requestIdOf } from '../../http/requestScope';
import { identityOf, requireApiKey } from '../../prelude/admission';
import { LIST_ROUTE, rawQueryOf, readListQuery, resourceNamed } from './input';
import { answerPage } from './page';

export interface ListDeps {
  gate: AccessGate;
  records: RecordsApi;
}

/**
 * GET /api/v1/{resource}: one page of the brand's records (SPEC 4.1), every form of the
 * request (the fast path takes only the common ones: fastPath.ts).
 * Order of checks, by design: authentication and the brand's rate limit come first
 * (requireApiKey), so an unauthenticated caller gets 401 for any path under /api/v1 (the
 * resource names are public in the OpenAPI file anyway) and every authenticated request
 * counts; then 404 unknown_resource; then parameter validation.
 */
export function mountResourcesList(router: Router, deps: ListDeps): void {
  router.get(LIST_ROUTE, requireApiKey(deps.gate), async (req, res) => {
    const resource = resourceNamed(String(req.params.resource));
    const params = readListQuery(rawQueryOf(req.originalUrl), req.query);
    await answerPage(deps.records, res, identityOf(res), resource, params, requestIdOf(res));
  });
  router.all(LIST_ROUTE, methodNotAllowed(['GET', 'HEAD']));
}
