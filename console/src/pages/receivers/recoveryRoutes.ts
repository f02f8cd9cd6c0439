import { randomUUID } from 'node:crypto';
import type { Response, Router } from 'express';
import type { PreviewRecoveryResponse, Receiver } from '@brand/proto/webhooks/v1';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { recoverySinceOf, REQUEST_ID } from './input';
import type { ReceiverKit } from './receiverKit';
import { receiverTabPath } from './receiverPage';
import { RecoveryPreviewPage } from './recoveryView';

/**
 * "Recover since": a preview (GET, changes nothing) that counts the receiver's failed
 * deliveries since a time and states the bounds, then the re-queue (POST) with the request
 * id the preview made, so a double click or a resubmitted form queues nothing twice.
 */
export function registerRecovery(router: Router, kit: ReceiverKit): void {
  const { webhooks, as, getReceiver, rightsOf } = kit;

  const previewPage = (
    res: Response,
    s: MemberSession,
    receiver: Receiver,
    since: Date,
    extra: { preview?: PreviewRecoveryResponse; error?: string },
    httpStatus = 200,
  ) =>
    sendPage(
      res,
      RecoveryPreviewPage({
        viewer: viewerOf(s),
        receiver,
        since,
        requestId: randomUUID(),
        canRecover: rightsOf(s).canRecover,
        ...extra,
      }),
      httpStatus,
    );

  router.get('/receivers/:receiverId/recover', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const now = new Date();
    const parsed = recoverySinceOf(req.query.since, now);
    if ('error' in parsed) {
      previewPage(res, s, receiver, now, { error: parsed.error }, 400);
      return;
    }
    try {
      const preview = await webhooks(
        'previewRecovery',
        { receiver_id: receiver.id, since: parsed.since.toISOString() },
        as(s),
      );
      previewPage(res, s, receiver, parsed.since, { preview });
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      previewPage(res, s, receiver, parsed.since, { error: refused.message }, refused.httpStatus);
    }
  });

  router.post('/receivers/:receiverId/recover', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const body = req.body as Record<string, unknown>;
    const now = new Date();
    const parsed = recoverySinceOf(body.since, now);
    const requestId = typeof body.request_id === 'string' ? body.request_id : '';
    if ('error' in parsed || !REQUEST_ID.test(requestId)) {
      const error =
        'error' in parsed ? parsed.error : 'Preview the recovery again, then confirm it.';
      previewPage(res, s, receiver, 'since' in parsed ? parsed.since : now, { error }, 400);
      return;
    }
    try {
      const done = await webhooks(
        'recoverDeliveries',
        {
          receiver_id: receiver.id,
          since: parsed.since.toISOString(),
          request_id: requestId,
          // the member is recorded as themselves
          actor_email: '',
        },
        as(s),
      );
      const query = new URLSearchParams({
        done: 'recovered',
        failed: String(done.requeued_failed),
        waiting: String(done.made_due),
        remaining: String(done.remaining),
        replayed: done.replayed ? '1' : '0',
      });
      res.redirect(303, `${receiverTabPath(s.brand.id, receiver.id, 'deliveries')}?${query}`);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      previewPage(res, s, receiver, parsed.since, { error: refused.message }, refused.httpStatus);
    }
  });
}
