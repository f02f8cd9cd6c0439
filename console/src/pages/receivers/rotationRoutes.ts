import type { Router } from 'express';
import type { ConsoleDeps } from '../../consoleDeps';
import { formRefusal } from '../../http/formRefusal';
import { memberOf } from '../../session/memberSession';
import { switchTimeOf } from './input';
import type { ReceiverKit } from './receiverKit';
import { receiverTabPath } from './receiverPage';
import { RotatedSecretPage } from './rotationView';
import { registerSecretReveal } from './secretReveal';

/**
 * The rotation of a receiver's signing secret, as the webhooks service runs it: rotate (the
 * new secret goes through the one-time reveal, as at creation), switch now or at a time,
 * cancel. The Test signed with the new secret is the receiver's Test route with a flag.
 */
export function registerRotation(router: Router, deps: ConsoleDeps, kit: ReceiverKit): void {
  const { webhooks, as, getReceiver, receiverPage } = kit;

  router.post('/receivers/:receiverId/rotate', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    try {
      const rotated = await webhooks(
        'rotateSecret',
        { receiver_id: receiver.id, actor_email: '' },
        as(s),
      );
      const id = await deps.reveal.put(s.token, {
        label: receiver.label,
        secret: rotated.new_secret,
      });
      res.redirect(303, `/brands/${s.brand.id}/receivers/${receiver.id}/rotated/${id}`);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await receiverPage(
        res,
        s,
        receiver,
        'settings',
        { error: refused.message },
        refused.httpStatus,
      );
    }
  });

  registerSecretReveal(router, deps, 'rotated', RotatedSecretPage);

  router.post('/receivers/:receiverId/switch-secret', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const when = switchTimeOf(req.body as Record<string, unknown>, new Date());
    if ('error' in when) {
      await receiverPage(res, s, receiver, 'settings', { error: when.error }, 400);
      return;
    }
    try {
      await webhooks(
        'switchSecret',
        { receiver_id: receiver.id, at: when.at, actor_email: '' },
        as(s),
      );
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await receiverPage(
        res,
        s,
        receiver,
        'settings',
        { error: refused.message },
        refused.httpStatus,
      );
      return;
    }
    const done = when.at ? 'switch-scheduled' : 'switched';
    res.redirect(303, `${receiverTabPath(s.brand.id, receiver.id, 'settings')}?done=${done}`);
  });

  router.post('/receivers/:receiverId/cancel-rotation', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    try {
      await webhooks('cancelRotation', { receiver_id: receiver.id, actor_email: '' }, as(s));
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await receiverPage(
        res,
        s,
        receiver,
        'settings',
        { error: refused.message },
        refused.httpStatus,
      );
      return;
    }
    const settings = receiverTabPath(s.brand.id, receiver.id, 'settings');
    res.redirect(303, `${settings}?done=rotation-cancelled`);
  });
}
