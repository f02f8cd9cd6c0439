import type { WebhooksServiceServer } from '@brand/proto/webhooks/v1';
import type { CursorKeys } from '../cursorKeys';
import { EventType } from '@brand/proto/events/v1';
import { auditorOf, listActivity } from '@brand/shared/activity';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import type { RpcBuilder } from '@brand/shared/grpc';
import { listDeliveries, resendDelivery, testReceiver } from '../log/deliveryService';
import {
  addReceiver,
  listReceivers,
  removeReceiver,
  updateReceiver,
  type ReceiverDeps,
} from '../receivers/receiverService';
import type { RecoveryDeps } from '../log/recoveryService';
import { getReceiverHealth } from '../health/healthService';
import { authorizeBrand, authorizedDelivery, authorizedReceiver } from './authorized';
import { eventOutcomeHandlers } from './eventOutcomeHandlers';
import { noticeHandlers } from './noticeHandlers';
import { recoveryHandlers } from './recoveryHandlers';
import { rotationHandlers } from './rotationHandlers';
import { deliveryStatusName, toDelivery, toHealthWindow, toReceiver } from './toProto';

/**
 * What the admin role needs: the receivers' store, secrets and URL policy (deliveries use
 * its pool), and the recovery bound.
 */
export type AdminDeps = ReceiverDeps &
  RecoveryDeps & {
    /** DELIVERY_HISTORY_RETENTION_MS, which the delivery log states. */
    historyRetentionMs: number;
    /** The events feed's cursor key (feed/feedCursor.ts): the Events page pages as the feed does. */
    cursorKeys: CursorKeys;
  };

/** Event types from the wire: UNSPECIFIED and unknown numbers are refused by field. */
const eventNames = (values: number[], field: string): EventTypeName[] =>
  values.map((value) => EVENT_TYPES.requireName(value, field));

/**
 * The admin role's gRPC surface, the whole WebhooksService: the receiver RPCs and the
 * delivery RPCs (test, list, get, resend) of the Developers area, its activity and a
 * receiver's health here; the secret rotation, retry and recovery, and disable-notice RPCs
 * from their own files. Every method but the notices' is a Developers-area RPC: brandctl
 * with the admin token, or the console for a member, authorized against the resource's own
 * brand and the permission table first.
 */
export function webhooksAdminHandlers(deps: AdminDeps, rpc: RpcBuilder): WebhooksServiceServer {
  const { pool } = deps;
  return {
    addReceiver: rpc.developers('AddReceiver', async (req, { actor }) => {
      authorizeBrand(actor, 'receivers.manage', req.brand_id);
      const { receiver, secret } = await addReceiver(
        deps,
        {
          brandId: req.brand_id,
          url: req.url,
          label: req.label,
          events: eventNames(req.events, 'events'),
          // a member is recorded as themselves, whatever the request said
          actorEmail: actor.kind === 'member' ? actor.member.email : req.actor_email,
        },
        auditorOf(actor),
      );
      return { receiver: toReceiver(receiver), secret };
    }),

    listReceivers: rpc.developers('ListReceivers', async (req, { actor }) => {
      authorizeBrand(actor, 'receivers.read', req.brand_id);
      return { receivers: (await listReceivers(deps, { brandId: req.brand_id })).map(toReceiver) };
    }),

    getReceiver: rpc.developers('GetReceiver', async (req, { actor }) => ({
      receiver: toReceiver(
        await authorizedReceiver(pool, actor, 'receivers.read', req.receiver_id),
      ),
    })),

    updateReceiver: rpc.developers('UpdateReceiver', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'receivers.manage', req.receiver_id);
      const receiver = await updateReceiver(
        deps,
        {
          receiverId: req.receiver_id,
          url: req.url,
          label: req.label,
          events: req.events.length > 0 ? eventNames(req.events, 'events') : undefined,
          enabled: req.enabled,
          // empty is absent, as SetSsoConnectionRequest's: a receiver always has one
          ifUpdatedAt: req.if_updated_at || undefined,
        },
        auditorOf(actor),
      );
      return { receiver: toReceiver(receiver) };
    }),

    removeReceiver: rpc.developers('RemoveReceiver', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'receivers.manage', req.receiver_id);
      const receiver = await removeReceiver(
        deps,
        { receiverId: req.receiver_id },
        auditorOf(actor),
      );
      return { receiver: toReceiver(receiver) };
    }),

    testReceiver: rpc.developers('TestReceiver', async (req, { actor }) => {
      // a Test signed with a rotation's new secret is a step of the rotation
      const action = req.with_new_secret ? 'receivers.rotate' : 'receivers.test';
      await authorizedReceiver(pool, actor, action, req.receiver_id);
      const delivery = await testReceiver(
        deps,
        {
          receiverId: req.receiver_id,
          type:
            req.event_type === EventType.EVENT_TYPE_UNSPECIFIED
              ? undefined
              : eventNames([req.event_type], 'event_type')[0],
          withNewSecret: req.with_new_secret,
        },
        auditorOf(actor),
      );
      return { delivery: toDelivery(delivery) };
    }),

    listDeliveries: rpc.developers('ListDeliveries', async (req, { actor }) => {
      if (req.receiver_id) {
        await authorizedReceiver(pool, actor, 'deliveries.read', req.receiver_id);
      } else {
        authorizeBrand(actor, 'deliveries.read', req.brand_id);
      }
      const eventType = req.event_type ? EVENT_TYPES.fromProto(req.event_type) : undefined;
      if (req.event_type && !eventType)
        throw new AppError('validation_failed', 'event_type: must be one of the four event types');
      const page = await listDeliveries(deps, {
        receiverId: req.receiver_id || undefined,
        brandId: req.brand_id || undefined,
        limit: req.limit === 0 ? 50 : req.limit,
        cursor: req.cursor || undefined,
        status: deliveryStatusName(req.status),
        eventType,
        since: req.since || undefined,
        until: req.until || undefined,
        eventId: req.event_id || undefined,
        recordId: req.record_id || undefined,
      });
      return {
        deliveries: page.deliveries.map(toDelivery),
        next_cursor: page.nextCursor,
        history_retention_days: Math.floor(deps.historyRetentionMs / 86_400_000),
      };
    }),

    getDelivery: rpc.developers('GetDelivery', async (req, { actor }) => ({
      delivery: toDelivery(
        await authorizedDelivery(pool, actor, 'deliveries.read', req.delivery_id),
      ),
    })),

    resendDelivery: rpc.developers('ResendDelivery', async (req, { actor }) => {
      await authorizedDelivery(pool, actor, 'deliveries.resend', req.delivery_id);
      const delivery = await resendDelivery(
        deps,
        { deliveryId: req.delivery_id },
        auditorOf(actor),
      );
      return { delivery: toDelivery(delivery) };
    }),

    listActivity: rpc.developers('ListActivity', async (req, { actor }) => {
      authorizeBrand(actor, 'activity.read', req.brand_id);
      return listActivity(pool, req);
    }),

    getReceiverHealth: rpc.developers('GetReceiverHealth', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'receivers.health', req.receiver_id);
      const windows = await getReceiverHealth(deps, { receiverId: req.receiver_id });
      return { windows: windows.map(toHealthWindow) };
    }),

    ...rotationHandlers(deps, rpc),
    ...recoveryHandlers(deps, rpc),
    ...noticeHandlers(deps, rpc),
    ...eventOutcomeHandlers(deps, rpc),
  };
}
