import { EventsFeedServiceService, type EventsFeedServiceServer } from '@brand/proto/webhooks/v1';
import { utf8Bytes, type RpcBuilder } from '@brand/shared/grpc';
import type { Server } from '@grpc/grpc-js';
import { feedTypes, listFeedEvents, type FeedDeps } from './feedService';

export type { FeedDeps } from './feedService';

/**
 * Adds EventsFeedService to the admin role's server: ListFeedEvents, a data-plane RPC of the
 * gateway (the internal token), which writes the page's envelope around data_json (or,
 * for a caller that did not ask for it, around events_json).
 */
export function addFeedService(server: Server, deps: FeedDeps, rpc: RpcBuilder): void {
  const handlers: EventsFeedServiceServer = {
    listFeedEvents: rpc.internal('ListFeedEvents', async (req) => {
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
    }),
  };
  server.addService(EventsFeedServiceService, handlers);
}
