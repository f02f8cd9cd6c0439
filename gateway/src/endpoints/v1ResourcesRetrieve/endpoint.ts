import type { Endpoint } from '../endpoint';
import { resourcesRetrievePath, type RetrieveDeps } from './leanPath';

export { describeV1ResourcesRetrieve } from './openApi';

/**
 * GET /api/v1/{resource}/{id} (docs/api.md "One record by id", issue 44): its lean path
 * (leanPath.ts), the one implementation of every record request, through its input rules
 * (input.ts) and answer (record.ts); its OpenAPI operations (openApi.ts) come from the same
 * schemas.
 */
export function v1ResourcesRetrieveEndpoint(deps: RetrieveDeps): Endpoint {
  return { lean: resourcesRetrievePath(deps) };
}
