import type { WebhooksServiceServer } from '@brand/proto/webhooks/v1';
import type { CursorKeys } from '../cursorKeys';
import { EVENT_TYPES } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import type { RpcBuilder } from '@brand/shared/grpc';
import type { Pool } from '@brand/shared/db';
import { listEventOutcomes } from '../feed/eventOutcomes';
import { authorizeBrand } from './authorized';
import { toDelivery } from './toProto';

/**
 * ListEventOutcomes, the console's Events page: the brand's events newest first, each with
 * its deliveries at every receiver. A Developers-area RPC (deliveries.read).
 */
export function eventOutcomeHandlers(
  deps: { pool: Pool; cursorKeys: CursorKeys; historyRetentionMs: number },
  rpc: RpcBuilder,
): Pick<WebhooksServiceServer, 'listEventOutcomes'> {
  return {
    listEventOutcomes: rpc.developers('ListEventOutcomes', async (req, { actor }) => {
      authorizeBrand(actor, 'deliveries.read', req.brand_id);
      const type = req.event_type ? EVENT_TYPES.fromProto(req.event_type) : undefined;
      if (req.event_type && !type)
        throw new AppError('invalid_parameter', 'event_type: must be one of the four event types');
      const page = await listEventOutcomes(deps, {
        brandId: req.brand_id,
        limit: req.limit,
        cursor: req.cursor,
        type,
        since: req.since,
        until: req.until,
        eventId: req.event_id,
        recordId: req.record_id,
      });
      return {
        events: page.events.map((e) => ({
          event_id: e.id,
          event_type: EVENT_TYPES.toProto(e.type),
          created_at: e.createdAt,
          object_json: e.objectJson,
          deliveries: e.deliveries.map(toDelivery),
          receiver_labels: Object.fromEntries(
            e.deliveries.map((d) => [d.receiver_id, d.receiver_label]),
          ),
        })),
        next_cursor: page.nextCursor,
        history_retention_days: Math.floor(deps.historyRetentionMs / 86_400_000),
      };
    }),
  };
}
