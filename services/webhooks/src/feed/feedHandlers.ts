import {
  EventsFeedServiceService,
  type EventsFeedServiceServer,
  type ListFeedEventsRequest,
  type ListFeedEventsResponse,
} from '@brand/proto/webhooks/v1';
import { utf8Bytes, type RpcBuilder } from '@brand/shared/grpc';
import type { RpcObserver } from '@brand/shared/metrics';
import type { Server } from '@grpc/grpc-js';
import { feedPageStreams, type FeedPageStreams } from './feedPageStreams';
import { feedTypes, listFeedEvents, type FeedDeps } from './feedService';

export type { FeedDeps } from './feedService';

/** What serving the feed needs beyond its store: its streams' bound and metrics. */
export interface FeedServiceSettings {
  /** Pages one StreamFeedPages stream may have in flight (PAGE_STREAM_MAX_IN_FLIGHT). */
  pageStreamMaxInFlight: number;
  metrics?: RpcObserver;
}

/**
 * One page, as ListFeedEvents answers it and as a FeedPageCall on a stream is answered: the
 * one function both run. With as_data_json the events come as one array for the caller to
 * write out as it arrives (the gateway); without, one JSON text each (brandctl, and a gateway
 * of an older version during a rolling upgrade).
 */
async function answerFeedPage(
  deps: FeedDeps,
  req: ListFeedEventsRequest,
): Promise<ListFeedEventsResponse> {
  const page = await listFeedEvents(deps, {
    brandId: req.brand_id,
    limit: req.limit,
    cursor: req.cursor,
    forward: req.forward,
    after: req.after,
    types: feedTypes(req.types),
    recordId: req.record_id,
    since: req.since,
    until: req.until,
  });
  const asArray = req.as_data_json;
  return {
    events_json: asArray ? [] : page.eventsJson,
    data_json: asArray ? utf8Bytes(`[${page.eventsJson.join(',')}]`) : new Uint8Array(0),
    count: page.eventsJson.length,
    next_cursor: page.nextCursor,
    next_after: page.nextAfter,
    feed_version: page.feedVersion,
  };
}

/**
 * Adds EventsFeedService to the admin role's server: ListFeedEvents and StreamFeedPages, the
 * gateway's data-plane RPCs (the internal token), which write the page's envelope around
 * data_json. Returns the page streams, which shutdown drains.
 */
export function addFeedService(
  server: Server,
  deps: FeedDeps,
  rpc: RpcBuilder,
  settings: FeedServiceSettings,
): FeedPageStreams {
  const pageStreams = feedPageStreams((req) => answerFeedPage(deps, req), {
    maxInFlight: settings.pageStreamMaxInFlight,
    metrics: settings.metrics,
  });
  const handlers: EventsFeedServiceServer = {
    listFeedEvents: rpc.internal('ListFeedEvents', (req) => answerFeedPage(deps, req)),
    streamFeedPages: rpc.internalStream('StreamFeedPages', pageStreams.serve),
  };
  server.addService(EventsFeedServiceService, handlers);
  return pageStreams;
}
