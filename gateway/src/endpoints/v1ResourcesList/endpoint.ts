import type { Endpoint } from '../endpoint';
import { resourcesListFastPath } from './fastPath';
import { mountResourcesList, type ListDeps } from './route';

export { describeV1ResourcesList } from './openApi';

/**
 * GET /api/v1/{resource} (SPEC 4.1): the route (route.ts) and its fast path (fastPath.ts),
 * both through the same input rules (input.ts) and answer (page.ts); its OpenAPI operations
 * (openApi.ts) come from the same schemas.
 */
export function v1ResourcesListEndpoint(deps: ListDeps): Endpoint {
  return {
    mount: (router) => mountResourcesList(router, deps),
    fastPath: resourcesListFastPath(deps),
  };
}
