import type { WebhooksServiceServer } from '@brand/proto/webhooks/v1';
import { auditorNamed, auditorOf } from '@brand/shared/activity';
import type { RpcBuilder } from '@brand/shared/grpc';
import { retryDelivery } from '../log/deliveryService';
import {
  previewRecovery,
  recoverDeliveries,
  retryWaitingDeliveries,
  type RecoveryDeps,
} from '../log/recoveryService';
import { authorizedDelivery, authorizedReceiver } from './authorized';
import { toDelivery } from './toProto';

/**
 * "Retry now" on a waiting delivery or on every waiting delivery of a receiver, and "recover
 * since" on a receiver (preview, then re-queue).
 */
export function recoveryHandlers(
  deps: RecoveryDeps,
  rpc: RpcBuilder,
): Pick<
  WebhooksServiceServer,
  'retryDelivery' | 'retryWaitingDeliveries' | 'previewRecovery' | 'recoverDeliveries'
> {
  const { pool } = deps;
  return {
    retryDelivery: rpc.developers('RetryDelivery', async (req, { actor }) => {
      await authorizedDelivery(pool, actor, 'deliveries.retry', req.delivery_id);
      const delivery = await retryDelivery(deps, { deliveryId: req.delivery_id }, auditorOf(actor));
      return { delivery: toDelivery(delivery) };
    }),

    retryWaitingDeliveries: rpc.developers('RetryWaitingDeliveries', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'deliveries.retry', req.receiver_id);
      const done = await retryWaitingDeliveries(
        deps,
        { receiverId: req.receiver_id },
        auditorNamed(actor, req.actor_email),
      );
      return { made_due: done.madeDue, remaining: done.remaining };
    }),

    previewRecovery: rpc.developers('PreviewRecovery', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'deliveries.recover', req.receiver_id);
      const p = await previewRecovery(deps, { receiverId: req.receiver_id, since: req.since });
      return {
        failed: p.failed,
        waiting: p.waiting,
        would_requeue: p.wouldRequeue,
        earliest_since: p.earliestSince,
        max_per_request: p.maxPerRequest,
      };
    }),

    recoverDeliveries: rpc.developers('RecoverDeliveries', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'deliveries.recover', req.receiver_id);
      const r = await recoverDeliveries(
        deps,
        { receiverId: req.receiver_id, since: req.since, requestId: req.request_id },
        auditorNamed(actor, req.actor_email),
      );
      return {
        requeued: r.requeued,
        requeued_failed: r.requeuedFailed,
        made_due: r.madeDue,
        remaining: r.remaining,
        replayed: r.replayed,
      };
    }),
  };
}
