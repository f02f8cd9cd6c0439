import type { components } from '../generated/openapi.js';
import type { NotModified } from '../records/recordsResource.js';
import type { ResponseMeta } from '../responseMeta.js';

/** A business event, exactly the JSON body a receiver gets (generated from the OpenAPI document). */
export type FeedEvent = components['schemas']['Event'];
/** One page of the events feed: `resource: "events"`, `count`, `data`, `next_cursor` or `next_after`, and the feed's `head`. */
export type EventsEnvelope = components['schemas']['EventsPage'];
/** The four event types. */
export type FeedEventType = FeedEvent['type'];

/** Filters of the feed, in both directions. */
export interface EventFilters {
  /** Only these types. */
  types?: readonly FeedEventType[];
  /** Only events about this record (the id in `data.object`). */
  recordId?: string;
  /** Only events created strictly after this instant. */
  since?: string | Date;
  /** Only events created strictly before this instant. */
  until?: string | Date;
}

export interface EventsListParams extends EventFilters {
  /** Page size, 1 to 200 (API default 50). */
  limit?: number;
  /** Newest first: the `next_cursor` of the previous page. Not with `after`. */
  cursor?: string;
  /** Follow mode: the events after this feed position, oldest first (0: the oldest kept). */
  after?: number;
  /** The `meta.etag` of the page you hold: while unchanged the answer is NotModified. */
  etag?: string;
  signal?: AbortSignal;
}

/** One page of the feed and what the response said about itself. */
export type EventsPage = EventsEnvelope & { meta: ResponseMeta };

/** A poll's answer: the changed (or first) page, or NotModified. */
export type EventsPollResult = (EventsPage & { notModified: false }) | NotModified;

/** What the follower reads the feed with (EventsResource.poll). */
export interface FeedPoller {
  poll(params: EventsListParams): Promise<EventsPollResult>;
}
