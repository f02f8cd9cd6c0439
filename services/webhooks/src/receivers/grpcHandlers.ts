import {
  DeliveryStatus,
  type Delivery,
  type Receiver,
  type WebhooksServiceServer,
} from '@brand/proto/webhooks/v1';
import { EventType } from '@brand/proto/events/v1';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import type { RpcBuilder } from '@brand/shared/grpc';
import {
  listDeliveries,
  resendDelivery,
  testReceiver,
  type DeliveryView,
} from '../deliveries/deliveryService';
import type { ReceiverRow } from './receiverRepo';
import {
  addReceiver,
  listReceivers,
  removeReceiver,
  updateReceiver,
  type ReceiverDeps,
} from './receiverService';

const toReceiver = (r: ReceiverRow): Receiver => ({
  id: r.id,
  brand_id: r.brand_id,
  url: r.url,
  label: r.label,
  events: r.events.map((e) => EVENT_TYPES.toProto(e)),
  enabled: r.enabled,
  disabled_reason: r.disabled_reason ?? '',
  last_status: r.last_status ?? 0,
  last_delivery_at: r.last_delivery_at ?? '',
  failure_count: r.failure_count,
  created_at: r.created_at,
  created_by: r.created_by,
});

const STATUS = {
  pending: DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: DeliveryStatus.DELIVERY_STATUS_FAILED,
} as const;

const toDelivery = (d: DeliveryView): Delivery => ({
  id: d.id,
  event_id: d.event_id,
  receiver_id: d.receiver_id,
  brand_id: d.brand_id,
  event_type: EVENT_TYPES.isName(d.event_type) ? EVENT_TYPES.toProto(d.event_type) : 0,
  test: d.test,
  status: STATUS[d.status],
  attempt_count: d.attempts,
  next_attempt_at: d.next_attempt_at ?? '',
  last_status: d.last_status ?? 0,
  last_error: d.last_error ?? '',
  created_at: d.created_at,
  completed_at: d.completed_at ?? '',
  attempts: d.attempt_log.map((a) => ({
    number: a.number,
    started_at: a.started_at,
    duration_ms: a.duration_ms,
    status_code: a.status_code ?? 0,
    error_class: a.error_class ?? '',
    excerpt: a.excerpt ?? '',
  })),
});

/** Event types from the wire: UNSPECIFIED and unknown numbers are refused by field. */
const eventNames = (values: number[], field: string): EventTypeName[] =>
  values.map((value) => EVENT_TYPES.requireName(value, field));

/** The WebhooksService: every method is an admin RPC (the Developers area). */
export function webhooksHandlers(deps: ReceiverDeps, rpc: RpcBuilder): WebhooksServiceServer {
  return {
    addReceiver: rpc.admin('AddReceiver', async (req) => {
      const { receiver, secret } = await addReceiver(deps, {
        brandId: req.brand_id,
        url: req.url,
        label: req.label,
        events: eventNames(req.events, 'events'),
        actorEmail: req.actor_email,
      });
      return { receiver: toReceiver(receiver), secret };
    }),

    listReceivers: rpc.admin('ListReceivers', async (req) => ({
      receivers: (await listReceivers(deps, { brandId: req.brand_id })).map(toReceiver),
    })),

    updateReceiver: rpc.admin('UpdateReceiver', async (req) => ({
      receiver: toReceiver(
        await updateReceiver(deps, {
          receiverId: req.receiver_id,
          url: req.url,
          label: req.label,
          events: req.events.length > 0 ? eventNames(req.events, 'events') : undefined,
          enabled: req.enabled,
        }),
      ),
    })),

    removeReceiver: rpc.admin('RemoveReceiver', async (req) => ({
      receiver: toReceiver(await removeReceiver(deps, { receiverId: req.receiver_id })),
    })),

    testReceiver: rpc.admin('TestReceiver', async (req) => ({
      delivery: toDelivery(
        await testReceiver(deps, {
          receiverId: req.receiver_id,
          type:
            req.event_type === EventType.EVENT_TYPE_UNSPECIFIED
              ? undefined
              : eventNames([req.event_type], 'event_type')[0],
        }),
      ),
    })),

    listDeliveries: rpc.admin('ListDeliveries', async (req) => ({
      deliveries: (
        await listDeliveries(deps, {
          receiverId: req.receiver_id || undefined,
          brandId: req.brand_id || undefined,
          limit: req.limit === 0 ? 50 : req.limit,
        })
      ).map(toDelivery),
    })),

    resendDelivery: rpc.admin('ResendDelivery', async (req) => ({
      delivery: toDelivery(await resendDelivery(deps, { deliveryId: req.delivery_id })),
    })),
  };
}
