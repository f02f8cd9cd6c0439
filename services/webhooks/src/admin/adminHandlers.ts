import type { WebhooksServiceServer } from '@brand/proto/webhooks/v1';
import { EventType } from '@brand/proto/events/v1';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { notYet, type RpcBuilder } from '@brand/shared/grpc';
import { listDeliveries, resendDelivery, testReceiver } from '../deliveries/deliveryService';
import {
  addReceiver,
  listReceivers,
  removeReceiver,
  updateReceiver,
  type ReceiverDeps,
} from '../receivers/receiverService';
import { toDelivery, toReceiver } from './toProto';

/** What the admin role needs: the receivers' store, secrets and URL policy (deliveries use its pool). */
export type AdminDeps = ReceiverDeps;

/** Event types from the wire: UNSPECIFIED and unknown numbers are refused by field. */
const eventNames = (values: number[], field: string): EventTypeName[] =>
  values.map((value) => EVENT_TYPES.requireName(value, field));

/**
 * The admin role's gRPC surface, the whole WebhooksService in one place: the receiver RPCs
 * and the delivery RPCs (test, list, resend) of the Developers area. Every method is an
 * admin RPC; the gateway is its only caller.
 */
export function webhooksAdminHandlers(deps: AdminDeps, rpc: RpcBuilder): WebhooksServiceServer {
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
    ...notYet(['getReceiver', 'getDelivery', 'listActivity']),
  };
}
