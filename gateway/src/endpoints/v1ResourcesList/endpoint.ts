import type { Endpoint } from '../endpoint';
import { resourcesListPath, type ListDeps } from './leanPath';

export { describeV1ResourcesList } from './openApi';

/**
 * GET /api/v1/{resource} (docs/contract.md#reading-records): its lean path (leanPath.ts), the one implementation of
 * every list request, through its input rules (input.ts) and answer (page.ts); its OpenAPI
 * operations (openApi.ts) come from the same schemas.
 */
export function v1ResourcesListEndpoint(deps: ListDeps): Endpoint {
  return { lean: resourcesListPath(deps) };
}
