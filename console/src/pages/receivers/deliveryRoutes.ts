import type { Response, Router } from 'express';
import type { Delivery, Receiver } from '@brand/proto/webhooks/v1';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { DeliveryPage } from './deliveryPage';
import type { ReceiverKit } from './receiverKit';

const DONE: Record<string, string> = {
  retried: 'Retry queued: the next attempt is due now.',
  resent: 'The delivery is queued again, as a new attempt of the same event.',
};

/** One delivery (its attempts, what was sent, what came back), retry now and resend. */
export function registerDeliveries(router: Router, kit: ReceiverKit): void {
  const { webhooks, as, getReceiver, getDelivery, rightsOf } = kit;

  const deliveryPage = (
    res: Response,
    s: MemberSession,
    receiver: Receiver,
    delivery: Delivery,
    extra: { notice?: string; error?: string } = {},
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
    const done = req.query.done;
    const notice = typeof done === 'string' && Object.hasOwn(DONE, done) ? DONE[done] : undefined;
    deliveryPage(res, s, receiver, delivery, { notice });
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
      const done = action === 'retry' ? 'retried' : 'resent';
      res.redirect(
        303,
        `/brands/${s.brand.id}/receivers/${receiver.id}/deliveries/${delivery.id}?done=${done}`,
      );
    });
  }
}
