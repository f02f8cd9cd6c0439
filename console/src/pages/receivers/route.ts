import type { Response, Router } from 'express';
import type { Receiver } from '@brand/proto/webhooks/v1';
import { roleAllows } from '@brand/shared/console';
import { EVENT_TYPES } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../consoleDeps';
import { repeatLocation, repeatNotice } from '../../forms/repeatedForm';
import { formatCount as count } from '../../views/counted';
import { ONCE_FIELD } from '../../forms/submitOnce';
import { formRefusal } from '../../http/formRefusal';
import { changedWhileSavingMessage, decideOntoRead } from '../../forms/ontoWhatWasRead';
import {
  changedFields,
  conflictMessage,
  keptForm,
  shownName,
  splitSet,
} from '../../forms/shownFields';
import { memberOf, viewerOf, type MemberSession } from '../../session/memberSession';
import { doneNoticeOf } from '../../views/doneNotice';
import { sendPage } from '../../views/render';
import { logFilterOf } from './deliveryLogFilter';
import { registerDeliveries } from './deliveryRoutes';
import { healthWindowOf } from './healthPanel';
import { ReceiverForm, TestForm } from './input';
import { receiverKit } from './receiverKit';
import { RECEIVER_TABS, receiverTabPath, type ReceiverTab } from './receiverPage';
import { retriedWaitingNotice } from './retryWaitingView';
import { receiverSecretPage, registerSecretReveal } from './secretReveal';
import { registerRecovery } from './recoveryRoutes';
import { registerRotation, rotationRepeatNotice } from './rotationRoutes';
import {
  DisableReceiverPage,
  RemoveReceiverPage,
  ReceiversPage,
  SecretCreatedPage,
  type ReceiverFormValues,
} from './view';
import { refusedToRole } from '../refusedToRole';
import type { OwnersOnlyPageProps } from '../../views/ownersOnly';

/** A receiver's fields as a conflict names them. */
const FIELD_WORDS = { url: 'URL', label: 'label', events: 'events' } as const;

/** A receiver's events by name, as the settings form shows them. */
const receiverEvents = (r: Receiver): string[] =>
  r.events.map((e) => EVENT_TYPES.fromProto(e) ?? 'unknown');

/** What the edit form showed, posted back hidden (undefined from the add form). */
function shownOf(body: Record<string, unknown>): ReceiverFormValues['shown'] {
  const [url, label, events] = ['url', 'label', 'events'].map((f) => body[shownName(f)]);
  if (typeof url !== 'string' || typeof label !== 'string' || typeof events !== 'string') return;
  return { url, label, events: splitSet(events) };
}

/** The list's notice when the add form was posted again after its receiver was shown. */
const ALREADY_ADDED =
  'This receiver was already added from this form: its signing secret was shown once, on the first submission. If nobody copied it, rotate the secret on its Settings tab.';

/** The notices a redirect back to a receiver's tab names with `?done=`. */
const DONE: Record<string, string> = {
  saved: 'Changes saved.',
  enabled: 'The receiver is enabled: new events are queued for it again.',
  disabled:
    'The receiver is disabled: it gets no deliveries until enabled, and what waited has failed (Recovery sends it after you enable it).',
  resent: 'The delivery is queued again.',
  'new-secret-tested':
    'A test signed with the new secret is queued: its outcome appears under “Test with the new secret”.',
  switched:
    'Switched: the new secret signs every delivery from now on, retries of older events included. The old secret is destroyed.',
  'switch-scheduled':
    'The switch is scheduled. Until then deliveries stay signed with the current secret.',
  'rotation-cancelled':
    'The rotation is cancelled: the new secret is discarded and the current one keeps signing.',
};

/**
 * The notice of a tab's `?done=`: a fixed sentence, or one built from the redirect's numbers;
 * or of a repeated rotate form's `?repeat=`.
 */
function doneNotice(query: Record<string, unknown>): string | undefined {
  const repeated = rotationRepeatNotice(query.repeat);
  if (repeated) return repeated;
  const done = query.done;
  if (done === 'recovered') return recoveredNotice(query);
  if (done === 'retried-waiting') return retriedWaitingNotice(query);
  return doneNoticeOf(DONE, done);
}

/** A receiver's disable or removal page as a role that may only read sees it. */
function ownersOnlyReceiverPage(
  s: MemberSession,
  receiver: Receiver,
  verb: 'Disable' | 'Remove',
): OwnersOnlyPageProps {
  return {
    title: `${verb} receiver`,
    section: 'receivers',
    what: `${verb.toLowerCase()} receivers`,
    back: {
      href: receiverTabPath(s.brand.id, receiver.id, 'settings'),
      label: `Back to “${receiver.label}”`,
    },
  };
}

/**
 * Receivers and their deliveries, all served by the webhooks service as the member: list,
 * add (secret shown once), a receiver's tabs, edit, enable/disable (confirmed), remove, Test,
 * retry all waiting; the secret's rotation, a delivery's page (retry now, resend) and recovery
 * have their own modules.
 */
export function registerReceivers(router: Router, deps: ConsoleDeps): void {
  const kit = receiverKit(deps);
  const { webhooks, as, getReceiver, receiverPage } = kit;

  const formValues = (body: Record<string, unknown>): ReceiverFormValues => ({
    url: typeof body.url === 'string' ? body.url.slice(0, 2048) : '',
    label: typeof body.label === 'string' ? body.label.slice(0, 200) : '',
    events: ([] as unknown[]).concat(body.events ?? []).filter((e) => typeof e === 'string'),
    shown: shownOf(body),
  });

  const listPage = async (
    res: Response,
    s: MemberSession,
    extra: { error?: string; notice?: string; form?: ReceiverFormValues } = {},
    httpStatus = 200,
  ) => {
    // A GET's receivers were read once already, for the attention notice (attentionLoader.ts).
    const receivers =
      s.receivers ?? (await webhooks('listReceivers', { brand_id: s.brand.id }, as(s))).receivers;
    const canManage = roleAllows(s.role, 'receivers.manage');
    const onceToken = deps.submitOnce.token();
    sendPage(
      res,
      ReceiversPage({ viewer: viewerOf(s), receivers, canManage, onceToken, ...extra }),
      httpStatus,
    );
  };

  router.get('/receivers', async (req, res) => {
    const notice =
      repeatNotice(req.query.repeat, ALREADY_ADDED, 'receiver') ??
      (req.query.removed === '1' ? 'The receiver is removed.' : undefined);
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
    // A double click, a retry or back-and-resubmit posts this form again: one receiver.
    const once = await deps.submitOnce.claim(
      s.token,
      s.brand.id,
      'receivers.add',
      body[ONCE_FIELD],
    );
    if (once.kind === 'stale') {
      const error = 'This form is out of date. Check the list below, then add the receiver again.';
      await listPage(res, s, { form: formValues(body), error }, 400);
      return;
    }
    if (once.kind === 'repeat') {
      res.redirect(303, repeatLocation(`/brands/${s.brand.id}/receivers`, once));
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
      const page = receiverSecretPage(s.brand.id, receiverId, 'created');
      const secret = { label: parsed.data.label, secret: added.secret };
      const id = await deps.reveal.put(s.token, page, secret);
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
      await listPage(
        res,
        s,
        { form: formValues(body), error: refused.message },
        refused.httpStatus,
      );
    }
  });

  registerSecretReveal(router, deps, 'created', SecretCreatedPage);

  // The tabs of a receiver's page (receiverPage.tsx), each a GET of its own.
  for (const tab of Object.keys(RECEIVER_TABS) as ReceiverTab[]) {
    router.get(`/receivers/:receiverId${RECEIVER_TABS[tab].path}`, async (req, res) => {
      const s = memberOf(res);
      const receiver = await getReceiver(s, String(req.params.receiverId));
      // the deliveries tab's filter; a refused one makes the page a 400 (receiverPage)
      await receiverPage(res, s, receiver, tab, {
        notice: doneNotice(req.query),
        log: tab === 'deliveries' ? logFilterOf(req.query) : undefined,
        healthWindow: healthWindowOf(req.query.health),
      });
    });
  }

  router.post('/receivers/:receiverId/edit', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    const body = req.body as Record<string, unknown>;
    const parsed = ReceiverForm.safeParse(body);
    if (!parsed.success) {
      const error = parsed.error.issues[0]?.message;
      await receiverPage(res, s, receiver, 'settings', { form: formValues(body), error }, 400);
      return;
    }
    // Only what the person changed is sent: the rest may have been changed by another owner
    // since the page was opened (forms/shownFields.ts); and only onto the receiver it was decided
    // on (if_updated_at), read again and decided once more if it changed before the write
    // (forms/ontoWhatWasRead.ts).
    const nowOf = (r: Receiver) => ({ url: r.url, label: r.label, events: receiverEvents(r) });
    let saved;
    try {
      saved = await decideOntoRead({
        read: receiver,
        readAgain: () => getReceiver(s, receiver.id),
        decide: (r) => changedFields(body, parsed.data, nowOf(r)),
        write: async (r, { changes }) => {
          await webhooks(
            'updateReceiver',
            {
              receiver_id: r.id,
              url: changes.url,
              label: changes.label,
              events: (changes.events ?? []).map((e) => EVENT_TYPES.toProto(e)),
              if_updated_at: r.updated_at,
            },
            as(s),
          );
        },
      });
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      const form = formValues(body);
      const extra = { form, error: refused.message };
      await receiverPage(res, s, receiver, 'settings', extra, refused.httpStatus);
      return;
    }
    if (saved.outcome !== 'written') {
      const { read, decided } = saved;
      const now = nowOf(read);
      const error =
        decided.conflicts.length > 0
          ? conflictMessage(decided.conflicts.map((f) => ({ label: FIELD_WORDS[f], now: now[f] })))
          : changedWhileSavingMessage('receiver');
      res.setHeader('X-Console-Error', 'edit_conflict');
      // what the person changed as they typed it, the rest as it is now (and shown as such)
      const form = {
        ...keptForm(formValues(body), now, decided),
        shown: now,
        conflicts: decided.conflicts,
      };
      await receiverPage(res, s, read, 'settings', { form, error }, 409);
      return;
    }
    res.redirect(303, `${receiverTabPath(s.brand.id, receiver.id, 'settings')}?done=saved`);
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    router.post(`/receivers/:receiverId/${action}`, async (req, res) => {
      const s = memberOf(res);
      const receiver = await getReceiver(s, String(req.params.receiverId));
      await webhooks('updateReceiver', { receiver_id: receiver.id, events: [], enabled }, as(s));
      const settings = receiverTabPath(s.brand.id, receiver.id, 'settings');
      res.redirect(303, `${settings}?done=${action}d`);
    });
  }

  // Disabling fails what waits: a page says so before it is done.
  router.get('/receivers/:receiverId/disable', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    if (refusedToRole(res, s, 'receivers.manage', ownersOnlyReceiverPage(s, receiver, 'Disable')))
      return;
    sendPage(res, DisableReceiverPage({ viewer: viewerOf(s), receiver }));
  });

  router.post('/receivers/:receiverId/retry-waiting', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    try {
      const done = await webhooks(
        'retryWaitingDeliveries',
        { receiver_id: receiver.id, actor_email: '' },
        as(s),
      );
      const query = new URLSearchParams({
        state: 'waiting',
        done: 'retried-waiting',
        made_due: String(done.made_due),
        remaining: String(done.remaining),
      });
      res.redirect(303, `${receiverTabPath(s.brand.id, receiver.id, 'deliveries')}?${query}`);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await receiverPage(
        res,
        s,
        receiver,
        'recovery',
        { error: refused.message },
        refused.httpStatus,
      );
    }
  });

  router.get('/receivers/:receiverId/remove', async (req, res) => {
    const s = memberOf(res);
    const receiver = await getReceiver(s, String(req.params.receiverId));
    if (refusedToRole(res, s, 'receivers.manage', ownersOnlyReceiverPage(s, receiver, 'Remove')))
      return;
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
    // a Test signed with a rotation's new secret is a step of the rotation, in the settings
    const tab = (req.body as Record<string, unknown>).with_new_secret ? 'settings' : 'testing';
    if (!parsed.success) {
      const error = 'Choose one of the receiver’s event types.';
      await receiverPage(res, s, receiver, tab, { error }, 400);
      return;
    }
    try {
      const { delivery } = await webhooks(
        'testReceiver',
        {
          receiver_id: receiver.id,
          event_type: EVENT_TYPES.toProto(parsed.data.event_type),
          with_new_secret: parsed.data.with_new_secret === '1',
        },
        as(s),
      );
      // A test of the new secret is followed where the rotation continues: the switch.
      res.redirect(
        303,
        parsed.data.with_new_secret
          ? `${receiverTabPath(s.brand.id, receiver.id, 'settings')}?done=new-secret-tested`
          : `/brands/${s.brand.id}/receivers/${receiver.id}/deliveries/${delivery?.id ?? ''}`,
      );
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await receiverPage(res, s, receiver, tab, { error: refused.message }, refused.httpStatus);
    }
  });

  registerRotation(router, deps, kit);
  registerDeliveries(router, kit);
  registerRecovery(router, kit);
}

/** "37 deliveries are being sent now ...", from the numbers the recovery redirect carries. */
function recoveredNotice(query: Record<string, unknown>): string {
  const n = (v: unknown) => (typeof v === 'string' && /^\d{1,7}$/.test(v) ? Number(v) : 0);
  const failed = n(query.failed);
  const waiting = n(query.waiting);
  const remaining = n(query.remaining);
  const parts = [
    failed + waiting === 0
      ? 'Nothing needed sending again.'
      : `${count(failed + waiting)} ${failed + waiting === 1 ? 'delivery is' : 'deliveries are'} being sent now, oldest first (${count(failed)} failed, ${count(waiting)} waiting for a retry), as attempts of the same events.`,
  ];
  if (remaining > 0) {
    parts.push(
      `${count(remaining)} more in the window were beyond this request's bound: recover again to send them.`,
    );
  }
  if (query.replayed === '1')
    parts.push('(This recovery was already done: nothing was sent twice.)');
  return parts.join(' ');
}
