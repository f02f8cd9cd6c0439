import type { Endpoint } from '../endpoint';
import { eventsListPath, type EventsListDeps } from './leanPath';

export { describeV1EventsList } from './openApi';

/**
 * GET /api/v1/events (docs/api.md "Events", issue 44): its lean path (leanPath.ts), the one
 * implementation of every feed request, through its input rules (input.ts) and answer
 * (page.ts); its OpenAPI operation (openApi.ts) comes from the same schemas.
 */
export function v1EventsListEndpoint(deps: EventsListDeps): Endpoint {
  return { lean: eventsListPath(deps) };
}
