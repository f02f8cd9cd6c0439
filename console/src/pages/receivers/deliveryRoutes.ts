import type { Response, Router } from 'express';
import type { Delivery, Receiver } from '@brand/proto/webhooks/v1';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { DeliveryPage } from './deliveryPage';
import type { ReceiverKit } from './receiverKit';

const RESENT = 'The delivery is queued again: a new round of attempts of the same event.';

/** The attempt a Retry now made, as its redirect carries it (`?done=retried&attempt=5`). */
function retriedAttempt(query: Record<string, unknown>): number | undefined {
  const n = query.done === 'retried' && typeof query.attempt === 'string' ? query.attempt : '';
  return /^\d{1,5}$/.test(n) ? Number(n) : undefined;
}

/**
 * One delivery (its attempts, what was sent, what came back), retry now and resend, from its
 * page, a delivery log or the Events page.
 */
export function registerDeliveries(router: Router, kit: ReceiverKit): void {
  const { webhooks, as, getReceiver, getDelivery, rightsOf } = kit;

  const deliveryPage = (
    res: Response,
    s: MemberSession,
    receiver: Receiver,
    delivery: Delivery,
    extra: { notice?: string; error?: string; retriedAttempt?: number } = {},
    httpStatus = 200,
  ) => {
    const rights = rightsOf(s);
    sendPage(
      res,
      DeliveryPage({
        viewer: viewerOf(s),
        receiverLabel: receiver.label,
        delivery,
        rights: {
          canResend: rights.canResend,
          canRetry: rights.canRetry,
          receiverEnabled: receiver.enabled,
        },
        ...extra,
      }),
      httpStatus,
    );
  };

  router.get('/receivers/:receiverId/deliveries/:deliveryId', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const delivery = await getDelivery(s, receiver, String(req.params.deliveryId));
    const notice = req.query.done === 'resent' ? RESENT : undefined;
    deliveryPage(res, s, receiver, delivery, { notice, retriedAttempt: retriedAttempt(req.query) });
  });

  for (const [action, rpc] of [
    ['resend', 'resendDelivery'],
    ['retry', 'retryDelivery'],
  ] as const) {
    router.post(`/receivers/:receiverId/deliveries/:deliveryId/${action}`, async (req, res) => {
      const s = memberOf(res);
      const receiver = await getReceiver(s, String(req.params.receiverId));
      const delivery = await getDelivery(s, receiver, String(req.params.deliveryId));
      try {
        await webhooks(rpc, { delivery_id: delivery.id }, as(s));
      } catch (err) {
        const refused = formRefusal(err);
        if (!refused) throw err;
        deliveryPage(res, s, receiver, delivery, { error: refused.message }, refused.httpStatus);
        return;
      }
      // a retry names the attempt it makes, so the page can say what became of that attempt
      const done = action === 'retry' ? `retried&attempt=${delivery.attempt_count + 1}` : 'resent';
      res.redirect(
        303,
        `/brands/${s.brand.id}/receivers/${receiver.id}/deliveries/${delivery.id}?done=${done}`,
      );
    });
  }
}
