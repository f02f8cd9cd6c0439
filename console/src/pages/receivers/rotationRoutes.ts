import type { Router } from 'express';
import type { ConsoleDeps } from '../../consoleDeps';
import { repeatLocation } from '../../forms/repeatedForm';
import { ONCE_FIELD } from '../../forms/submitOnce';
import { formRefusal } from '../../http/formRefusal';
import { memberOf } from '../../session/memberSession';
import { switchTimeOf } from './input';
import type { ReceiverKit } from './receiverKit';
import { receiverTabPath } from './receiverPage';
import { RotatedSecretPage } from './rotationView';
import { receiverSecretPage, registerSecretReveal } from './secretReveal';

/**
 * The Settings tab's notice for `?repeat=` after a repeated rotate form: `rotated`, its new
 * secret already shown (cancelling discards it; the current secret keeps signing), or
 * `unfinished`. Undefined for any other value.
 */
export function rotationRepeatNotice(repeat: unknown): string | undefined {
  if (repeat === 'rotated') {
    return 'This secret was already rotated from this form: the new secret was shown once, on the first submission. If nobody copied it, cancel the rotation below (the current secret keeps signing) and rotate again.';
  }
  if (repeat === 'unfinished') {
    return 'This form was already submitted, and that submission did not finish. Check the signing secret below before rotating again.';
  }
  return undefined;
}

/**
 * The rotation of a receiver's signing secret, as the webhooks service runs it: rotate (the
 * new secret goes through the one-time reveal, as at creation; a repeat of the form rotates
 * nothing more, forms/submitOnce.ts), switch now or at a time, cancel. The Test signed with the
 * new secret is the receiver's Test route with a flag.
 */
export function registerRotation(router: Router, deps: ConsoleDeps, kit: ReceiverKit): void {
  const { webhooks, as, getReceiver, receiverPage } = kit;

  router.post('/receivers/:receiverId/rotate', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const settings = receiverTabPath(s.brand.id, receiver.id, 'settings');
    // A double click on "Rotate": the second post was refused (a rotation is pending) and the
    // new secret's one page lost with the first answer; it gets that page instead.
    const once = await deps.submitOnce.claim(
      s.token,
      s.brand.id,
      `receivers.rotate:${receiver.id}`,
      (req.body as Record<string, unknown>)[ONCE_FIELD],
    );
    if (once.kind === 'stale') {
      const error = 'This form is out of date. Check the signing secret below, then rotate again.';
      await receiverPage(res, s, receiver, 'settings', { error }, 400);
      return;
    }
    if (once.kind === 'repeat') {
      const words = { created: 'rotated', unfinished: 'unfinished' };
      res.redirect(303, repeatLocation(settings, once, words));
      return;
    }
    try {
      const rotated = await webhooks(
        'rotateSecret',
        { receiver_id: receiver.id, actor_email: '' },
        as(s),
      );
      const page = receiverSecretPage(s.brand.id, receiver.id, 'rotated');
      const id = await deps.reveal.put(s.token, page, {
        label: receiver.label,
        secret: rotated.new_secret,
      });
      const location = `${page}/${id}`;
      await once.done(location, id);
      res.redirect(303, location);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) {
        await once.failed();
        throw err;
      }
      await once.release();
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
