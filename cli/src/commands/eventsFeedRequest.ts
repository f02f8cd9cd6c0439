import type { ListFeedEventsRequest } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';

/** The feed's filters as brandctl's options carry them (events list and follow). */
export interface FeedFilters {
  type?: EventTypeName[];
  record?: string;
  since?: string;
  until?: string;
  limit: number;
}

/** A ListFeedEvents request of a brand with these filters; `page` says where and which way. */
export function feedRequest(
  brandId: string,
  filters: FeedFilters,
  page: Partial<ListFeedEventsRequest>,
): ListFeedEventsRequest {
  return {
    brand_id: brandId,
    limit: filters.limit,
    cursor: '',
    forward: false,
    after: 0,
    types: (filters.type ?? []).map((t) => EVENT_TYPES.toProto(t)),
    record_id: filters.record ?? '',
    since: filters.since ?? '',
    until: filters.until ?? '',
    // one JSON text per event (events_json): each is printed on its own
    as_data_json: false,
    ...page,
  };
}
