import type { Response, Router } from 'express';
import type { Receiver } from '@brand/proto/webhooks/v1';
import { roleAllows } from '@brand/shared/console';
import { EVENT_TYPES } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../app';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { DeliveryPage } from './deliveryView';
import { DELIVERY_ID, RECEIVER_ID, ReceiverForm, TestForm } from './input';
import { ReceiverPage } from './receiverPage';
import {
  RemoveReceiverPage,
  ReceiversPage,
  SecretCreatedPage,
  type ReceiverFormValues,
} from './view';

/**
 * Receivers and their deliveries, all served by the webhooks service as the member: list,
 * add (secret shown once), edit, enable/disable, remove, Test, the delivery log, resend.
 */
export function registerReceivers(router: Router, deps: ConsoleDeps): void {
  const webhooks = deps.clients.webhooks;
  const as = (s: MemberSession) => ({ assertion: s.assertion });

  const formValues = (body: Record<string, unknown>): ReceiverFormValues => ({
    url: typeof body.url === 'string' ? body.url.slice(0, 2048) : '',
    label: typeof body.label === 'string' ? body.label.slice(0, 200) : '',
    events: ([] as unknown[]).concat(body.events ?? []).filter((e) => typeof e === 'string'),
  });

  const listPage = async (
    res: Response,
    s: MemberSession,
    extra: { error?: string; notice?: string; form?: ReceiverFormValues } = {},
    httpStatus = 200,
  ) => {
    const { receivers } = await webhooks('listReceivers', { brand_id: s.brand.id }, as(s));
    const canManage = roleAllows(s.role, 'receivers.manage');
    sendPage(
      res,
      ReceiversPage({ viewer: viewerOf(s), receivers, canManage, ...extra }),
      httpStatus,
    );
  };

  const getReceiver = async (s: MemberSession, id: string): Promise<Receiver> => {
    if (!RECEIVER_ID.test(id)) throw notFound();
    const { receiver } = await webhooks('getReceiver', { receiver_id: id }, as(s));
    // The service answers NOT_FOUND for another brand's receiver; this guards a stray answer.
    if (!receiver || receiver.brand_id !== s.brand.id) throw notFound();
    return receiver;
  };

  const receiverPage = async (
    res: Response,
    s: MemberSession,
    receiver: Receiver,
    extra: { error?: string; notice?: string; form?: ReceiverFormValues } = {},
    httpStatus = 200,
  ) => {
    const { deliveries } = await webhooks(
      'listDeliveries',
      { receiver_id: receiver.id, brand_id: '', limit: 50 },
      as(s),
    );
    sendPage(
      res,
      ReceiverPage({
        viewer: viewerOf(s),
        receiver,
        deliveries,
        canManage: roleAllows(s.role, 'receivers.manage'),
        canTest: roleAllows(s.role, 'receivers.test'),
        canResend: roleAllows(s.role, 'deliveries.resend'),
        ...extra,
      }),
      httpStatus,
    );
  };

  router.get('/receivers', async (req, res) => {
    const notice = req.query.removed === '1' ? 'The receiver is removed.' : undefined;
    await listPage(res, memberOf(res), { notice });
  });

  router.post('/receivers', async (req, res) => {
    const s = memberOf(res);
    const body = req.body as Record<string, unknown>;
    const parsed = ReceiverForm.safeParse(body);
    if (!parsed.success) {
      await listPage(
        res,
        s,
        { form: formValues(body), error: parsed.error.issues[0]?.message },
        400,
      );
      return;
    }
    try {
      const added = await webhooks(
        'addReceiver',
        {
          brand_id: s.brand.id,
          url: parsed.data.url,
          label: parsed.data.label,
          events: parsed.data.events.map((e) => EVENT_TYPES.toProto(e)),
          actor_email: '',
        },
        as(s),
      );
      const receiverId = added.receiver?.id ?? '';
      const id = await deps.reveal.put(s.token, { label: parsed.data.label, secret: added.secret });
      res.redirect(303, `/brands/${s.brand.id}/receivers/${receiverId}/created/${id}`);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await listPage(
        res,
        s,
        { form: formValues(body), error: refused.message },
        refused.httpStatus,
      );
    }
  });

  router.get('/receivers/:receiverId/created/:revealId', async (req, res) => {
    const s = memberOf(res);
    const receiverId = String(req.params.receiverId);
    if (!RECEIVER_ID.test(receiverId)) throw notFound();
    const created = (await deps.reveal.take(s.token, String(req.params.revealId))) as
      { label: string; secret: string } | undefined;
    sendPage(
      res,
      SecretCreatedPage({ viewer: viewerOf(s), receiverId, created }),
      created ? 200 : 410,
    );
  });

  router.get('/receivers/:receiverId', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const notices: Record<string, string> = {
      saved: 'Changes saved.',
      enabled: 'The receiver is enabled.',
      disabled: 'The receiver is disabled: it gets no deliveries until enabled.',
      resent: 'The delivery is queued again.',
    };
    const done = typeof req.query.done === 'string' ? notices[req.query.done] : undefined;
    await receiverPage(res, s, receiver, { notice: done });
  });

  router.post('/receivers/:receiverId/edit', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const body = req.body as Record<string, unknown>;
    const parsed = ReceiverForm.safeParse(body);
    if (!parsed.success) {
      const error = parsed.error.issues[0]?.message;
      await receiverPage(res, s, receiver, { form: formValues(body), error }, 400);
      return;
    }
    try {
      await webhooks(
        'updateReceiver',
        {
          receiver_id: receiver.id,
          url: parsed.data.url,
          label: parsed.data.label,
          events: parsed.data.events.map((e) => EVENT_TYPES.toProto(e)),
        },
        as(s),
      );
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      const form = formValues(body);
      await receiverPage(res, s, receiver, { form, error: refused.message }, refused.httpStatus);
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/receivers/${receiver.id}?done=saved`);
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    router.post(`/receivers/:receiverId/${action}`, async (req, res) => {
      const s = memberOf(res);
      const receiver = await getReceiver(s, String(req.params.receiverId));
      await webhooks('updateReceiver', { receiver_id: receiver.id, events: [], enabled }, as(s));
      res.redirect(303, `/brands/${s.brand.id}/receivers/${receiver.id}?done=${action}d`);
    });
  }

  router.get('/receivers/:receiverId/remove', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    sendPage(res, RemoveReceiverPage({ viewer: viewerOf(s), receiver }));
  });

  router.post('/receivers/:receiverId/remove', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    await webhooks('removeReceiver', { receiver_id: receiver.id }, as(s));
    res.redirect(303, `/brands/${s.brand.id}/receivers?removed=1`);
  });

  router.post('/receivers/:receiverId/test', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const parsed = TestForm.safeParse(req.body);
    if (!parsed.success) {
      await receiverPage(
        res,
        s,
        receiver,
        { error: 'Choose one of the receiver’s event types.' },
        400,
      );
      return;
    }
    try {
      const { delivery } = await webhooks(
        'testReceiver',
        { receiver_id: receiver.id, event_type: EVENT_TYPES.toProto(parsed.data.event_type) },
        as(s),
      );
      res.redirect(
        303,
        `/brands/${s.brand.id}/receivers/${receiver.id}/deliveries/${delivery?.id ?? ''}`,
      );
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await receiverPage(res, s, receiver, { error: refused.message }, refused.httpStatus);
    }
  });

  router.get('/receivers/:receiverId/deliveries/:deliveryId', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const deliveryId = String(req.params.deliveryId);
    if (!DELIVERY_ID.test(deliveryId)) throw notFound();
    const { delivery } = await webhooks('getDelivery', { delivery_id: deliveryId }, as(s));
    if (!delivery || delivery.receiver_id !== receiver.id) throw notFound();
    sendPage(res, DeliveryPage({ viewer: viewerOf(s), receiverLabel: receiver.label, delivery }));
  });

  router.post('/receivers/:receiverId/deliveries/:deliveryId/resend', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const deliveryId = String(req.params.deliveryId);
    if (!DELIVERY_ID.test(deliveryId)) throw notFound();
    const { delivery } = await webhooks('getDelivery', { delivery_id: deliveryId }, as(s));
    if (!delivery || delivery.receiver_id !== receiver.id) throw notFound();
    await webhooks('resendDelivery', { delivery_id: deliveryId }, as(s));
    res.redirect(303, `/brands/${s.brand.id}/receivers/${receiver.id}/deliveries/${deliveryId}`);
  });
}
