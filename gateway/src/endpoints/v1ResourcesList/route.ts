import type { Router } from 'express';
import { changeVersionKey } from '@brand/shared/changeVersions';
import { isResourceName } from '@brand/shared/resources';
import type { AccessGate } from '../../auth/accessGate';
import { methodNotAllowed } from '../../http/methodNotAllowed';
import { requestIdOf } from '../../http/requestScope';
import { identityOf, peekedOf, requireApiKey } from '../../prelude/admission';
import { LIST_ROUTE, rawQueryOf, readListQuery, resourceNamed } from './input';
import { answerPage, type PageDeps } from './page';

export interface ListDeps extends PageDeps {
  gate: AccessGate;
}

/**
 * GET /api/v1/{resource}: one page of the brand's records (SPEC 4.1), every form of the
 * request (the fast path takes only the common ones: fastPath.ts).
 * Order of checks, by design: authentication and the brand's rate limit come first
 * (requireApiKey), so an unauthenticated caller gets 401 for any path under /api/v1 (the
 * resource names are public in the OpenAPI file anyway) and every authenticated request
 * counts (a 304 too); then 404 unknown_resource; then parameter validation; then the
 * conditional check and the page (page.ts).
 */
export function mountResourcesList(router: Router, deps: ListDeps): void {
  const admission = requireApiKey(deps.gate, (req, identity) => {
    const resource = String(req.params.resource);
    return isResourceName(resource) ? changeVersionKey(identity.brandId, resource) : undefined;
  });
  router.get(LIST_ROUTE, admission, async (req, res) => {
    const resource = resourceNamed(String(req.params.resource));
    const params = readListQuery(rawQueryOf(req.originalUrl), req.query);
    await answerPage(deps, res, {
      identity: identityOf(res),
      resource,
      params,
      requestId: requestIdOf(res),
      ifNoneMatch: req.headers['if-none-match'],
      version: peekedOf(res),
    });
  });
  router.all(LIST_ROUTE, methodNotAllowed(['GET', 'HEAD']));
}
