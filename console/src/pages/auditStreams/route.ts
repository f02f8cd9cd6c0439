import type { Request, Response, Router } from 'express';
import type { AuditStream } from '@brand/proto/webhooks/v1/audit';
import { roleAllows } from '@brand/shared/console';
import type { ConsoleDeps } from '../../consoleDeps';
import { repeatLocation, repeatNotice } from '../../forms/repeatedForm';
import { ONCE_FIELD } from '../../forms/submitOnce';
import { formRefusal } from '../../http/formRefusal';
import { changedFields, conflictMessage, keptForm, shownName } from '../../forms/shownFields';
import { changedWhileSavingMessage, decideOntoRead } from '../../forms/ontoWhatWasRead';
import { memberOf, notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { doneNoticeOf } from '../../views/doneNotice';
import { sendPage } from '../../views/render';
import { healthWindowOf } from '../receivers/healthPanel';
import { AddStreamForm, STREAM_ID, UpdateStreamForm, type AddStreamValues } from './input';
import {
  AuditStreamPage,
  AuditStreamsPage,
  RemoveStreamPage,
  ResendSetAsidePage,
  shownStreamFields,
  StreamSecretPage,
  type AuditStreamsPageProps,
} from './view';
import { refusedToRole } from '../refusedToRole';

/** What the one-time reveal holds between connecting an HTTPS stream and showing its secret. */
interface CreatedStream {
  label: string;
  secret: string;
  streamId: string;
}

/** The page a new HTTPS stream's signing secret is shown on (and only there), without its reveal id. */
const streamCreatedPage = (brandId: string) => `/brands/${brandId}/audit-streams/created`;

/** A stream's settings as a conflict names them. */
const STREAM_FIELD_WORDS: Record<string, string> = {
  label: 'name',
  url: 'URL',
  datadog_site: 'Datadog site',
  splunk_index: 'Splunk index',
};

/** The list's notice when the add form was posted again after its stream's secret was shown. */
const ALREADY_CONNECTED =
  'This stream was already connected from this form: its signing secret was shown once, on the first submission. If nobody copied it, remove the stream below and connect it again.';

/** The notices a redirect back to a stream's page names with `?done=`. */
const DONE: Record<string, string> = {
  connected: 'The stream is connected: it is sent every entry from now on.',
  saved: 'Changes saved.',
  enabled: 'The stream is enabled: it is sent every entry it was not sent yet, in order.',
  disabled: 'The stream is disabled: its entries wait until it is enabled again.',
  tested: 'A test entry is queued: its outcome appears under “Last deliveries”.',
  resent:
    'The set-aside entries are queued to be sent again. They arrive out of order, after the entries sent since; each carries its position. Their outcome appears under “Last deliveries”.',
  // more than one Send queues (ResendSetAside: the oldest 100 a call)
  'resent-some':
    'The oldest 100 set-aside entries are queued to be sent again. They arrive out of order, after the entries sent since; each carries its position. The others are still set aside: send them again below.',
};

/**
 * Audit streams (issue 63), served by the webhooks service as the member: the list and the
 * form that connects one (an HTTPS stream's secret shown once), a stream's page (state, health,
 * last deliveries, Test, settings, enable/disable), removal with confirmation. The service
 * decides who may do what and whether a destination passes; its refusals are shown in words.
 */
export function registerAuditStreams(router: Router, deps: ConsoleDeps): void {
  const streams = deps.clients.auditStreams;
  const as = (s: MemberSession) => ({ assertion: s.assertion });

  const listPage = async (
    res: Response,
    s: MemberSession,
    extra: Partial<AuditStreamsPageProps> = {},
    httpStatus = 200,
  ) => {
    const list = await streams('listAuditStreams', { brand_id: s.brand.id }, as(s));
    sendPage(
      res,
      AuditStreamsPage({
        viewer: viewerOf(s),
        streams: list.streams,
        limit: list.limit,
        canManage: roleAllows(s.role, 'audit_streams.manage'),
        onceToken: deps.submitOnce.token(),
        ...extra,
      }),
      httpStatus,
    );
  };

  const pathStream = (req: Request): string => {
    const id = String(req.params.streamId);
    if (!STREAM_ID.test(id)) throw notFound();
    return id;
  };

  const streamPage = async (
    req: Request,
    res: Response,
    s: MemberSession,
    extra: {
      notice?: string;
      error?: string;
      form?: Record<string, string>;
      conflicts?: readonly string[];
    } = {},
    httpStatus = 200,
  ) => {
    const got = await streams(
      'getAuditStream',
      { stream_id: pathStream(req), deliveries: 20 },
      as(s),
    );
    sendPage(
      res,
      AuditStreamPage({
        viewer: viewerOf(s),
        stream: got.stream!,
        health: got.health,
        healthWindow: healthWindowOf(req.query.health),
        deliveries: got.deliveries,
        canManage: roleAllows(s.role, 'audit_streams.manage'),
        ...extra,
      }),
      httpStatus,
    );
  };

  router.get('/audit-streams', async (req, res) => {
    const notice = repeatNotice(req.query.repeat, ALREADY_CONNECTED, 'stream');
    await listPage(res, memberOf(res), notice ? { notice } : {});
  });

  router.post('/audit-streams', async (req, res) => {
    const s = memberOf(res);
    const body = req.body as Record<string, unknown>;
    const typed = (k: string) => (typeof body[k] === 'string' ? body[k].slice(0, 2048) : '');
    const form: Partial<AddStreamValues> = {
      kind: (['https', 'splunk_hec', 'datadog'] as const).find((k) => k === body.kind),
      label: typed('label'),
      url: typed('url'),
      datadog_site: typed('datadog_site'),
      splunk_index: typed('splunk_index'),
    };
    const parsed = AddStreamForm.safeParse(body);
    if (!parsed.success) {
      await listPage(res, s, { form, error: parsed.error.issues[0]?.message }, 400);
      return;
    }
    const v = parsed.data;
    // A double click, a retry or back-and-resubmit posts this form again: one stream.
    const once = await deps.submitOnce.claim(
      s.token,
      s.brand.id,
      'audit_streams.add',
      body[ONCE_FIELD],
    );
    if (once.kind === 'stale') {
      const error =
        'This form is out of date. Check the list below, then connect the stream again.';
      await listPage(res, s, { form, error }, 400);
      return;
    }
    if (once.kind === 'repeat') {
      res.redirect(303, repeatLocation(`/brands/${s.brand.id}/audit-streams`, once));
      return;
    }
    try {
      const added = await streams(
        'addAuditStream',
        {
          brand_id: s.brand.id,
          kind: v.kind,
          label: v.label,
          url: v.url,
          token: v.token,
          // the form offers every field; each kind sends only its own
          datadog_site: v.kind === 'datadog' ? v.datadog_site : '',
          splunk_index: v.kind === 'splunk_hec' ? v.splunk_index : '',
          actor_email: '',
        },
        as(s),
      );
      const id = added.stream!.id;
      if (added.signing_secret) {
        const reveal: CreatedStream = {
          label: v.label,
          secret: added.signing_secret,
          streamId: id,
        };
        const page = streamCreatedPage(s.brand.id);
        const revealId = await deps.reveal.put(s.token, page, reveal);
        const location = `${page}/${revealId}`;
        await once.done(location, revealId);
        res.redirect(303, location);
        return;
      }
      // no secret to show: a repeat is sent to the same page
      const location = `/brands/${s.brand.id}/audit-streams/${id}?done=connected`;
      await once.done(location, '');
      res.redirect(303, location);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) {
        await once.failed();
        throw err;
      }
      await once.release();
      await listPage(res, s, { form, error: refused.message }, refused.httpStatus);
    }
  });

  router.get('/audit-streams/created/:revealId', async (req, res) => {
    const s = memberOf(res);
    const page = streamCreatedPage(s.brand.id);
    const created = (await deps.reveal.take(s.token, page, String(req.params.revealId))) as
      CreatedStream | undefined;
    sendPage(res, StreamSecretPage({ viewer: viewerOf(s), created }), created ? 200 : 410);
  });

  router.get('/audit-streams/:streamId', async (req, res) => {
    const done = doneNoticeOf(DONE, req.query.done);
    await streamPage(req, res, memberOf(res), done ? { notice: done } : {});
  });

  /**
   * A change of the stream; its refusal is shown on the stream's page with its status. `done`
   * names the notice, or picks it from what the call answered.
   */
  const change = async <T>(
    req: Request,
    res: Response,
    done: string | ((answer: T) => string),
    call: (s: MemberSession, streamId: string) => Promise<T>,
  ) => {
    const s = memberOf(res);
    const id = pathStream(req);
    let answer: T;
    try {
      answer = await call(s, id);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await streamPage(req, res, s, { error: refused.message }, refused.httpStatus);
      return;
    }
    const notice = typeof done === 'string' ? done : done(answer);
    res.redirect(303, `/brands/${s.brand.id}/audit-streams/${id}?done=${notice}`);
  };

  router.post('/audit-streams/:streamId', async (req, res) => {
    const parsed = UpdateStreamForm.safeParse(req.body);
    if (!parsed.success) {
      await streamPage(req, res, memberOf(res), { error: parsed.error.issues[0]?.message }, 400);
      return;
    }
    const v = parsed.data;
    // Only what the person changed is sent: the rest may have been changed by another owner
    // since the page was opened (forms/shownFields.ts); and only onto the stream it was decided
    // on (if_updated_at), read again and decided once more if it changed before the write
    // (forms/ontoWhatWasRead.ts).
    const s = memberOf(res);
    const id = pathStream(req);
    const body = req.body as Record<string, unknown>;
    const readStream = async () =>
      (await streams('getAuditStream', { stream_id: id, deliveries: 1 }, as(s))).stream!;
    const postedOf = (now: Record<string, string>) =>
      Object.fromEntries(Object.keys(now).map((f) => [f, v[f as keyof typeof v]])) as Record<
        string,
        string
      >;
    const decide = (stream: AuditStream) => {
      const now = shownStreamFields(stream);
      const posted = postedOf(now);
      const decided = changedFields(body, posted, now);
      // A token typed for the destination the page showed goes nowhere else (as a new client
      // secret on the single sign-on form): if another owner moved the stream since, and this
      // person did not move it there too, the save is refused, naming the destination.
      if (v.token !== '') {
        for (const name of ['url', 'datadog_site'].filter((f) => f in now)) {
          const shown = body[shownName(name)];
          const movedByOthers = typeof shown === 'string' && shown !== now[name];
          if (movedByOthers && posted[name] !== now[name] && !decided.conflicts.includes(name))
            decided.conflicts.push(name);
        }
      }
      return decided;
    };
    let saved;
    try {
      saved = await decideOntoRead({
        read: await readStream(),
        readAgain: readStream,
        decide,
        write: async (stream, { changes }) => {
          await streams(
            'updateAuditStream',
            {
              stream_id: id,
              label: changes.label,
              url: changes.url === '' ? undefined : changes.url,
              token: v.token === '' ? undefined : v.token,
              datadog_site: changes.datadog_site === '' ? undefined : changes.datadog_site,
              splunk_index: changes.splunk_index,
              actor_email: '',
              if_updated_at: stream.updated_at,
            },
            as(s),
          );
        },
      });
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await streamPage(req, res, s, { error: refused.message }, refused.httpStatus);
      return;
    }
    if (saved.outcome !== 'written') {
      const now = shownStreamFields(saved.read);
      const { conflicts } = saved.decided;
      const error =
        conflicts.length > 0
          ? conflictMessage(
              conflicts.map((f) => ({ label: STREAM_FIELD_WORDS[f] ?? f, now: now[f]! })),
            )
          : changedWhileSavingMessage('audit stream');
      res.setHeader('X-Console-Error', 'edit_conflict');
      // what the person changed as they typed it, the rest as it is now
      const form = keptForm(postedOf(now), now, saved.decided);
      await streamPage(req, res, s, { error, form, conflicts }, 409);
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/audit-streams/${id}?done=saved`);
  });

  for (const [path, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    router.post(`/audit-streams/:streamId/${path}`, (req, res) =>
      change(req, res, `${path}d`, (s, id) =>
        streams('updateAuditStream', { stream_id: id, enabled, actor_email: '' }, as(s)),
      ),
    );
  }

  router.post('/audit-streams/:streamId/test', (req, res) =>
    change(req, res, 'tested', (s, id) =>
      streams('testAuditStream', { stream_id: id, actor_email: '' }, as(s)),
    ),
  );

  router.get('/audit-streams/:streamId/resend-set-aside', async (req, res) => {
    const s = memberOf(res);
    const got = await streams(
      'getAuditStream',
      { stream_id: pathStream(req), deliveries: 1 },
      as(s),
    );
    // nothing set aside (sent again meanwhile): the stream's page says where it stands
    if (got.stream!.set_aside === 0) {
      res.redirect(303, `/brands/${s.brand.id}/audit-streams/${got.stream!.id}`);
      return;
    }
    sendPage(res, ResendSetAsidePage({ viewer: viewerOf(s), stream: got.stream! }));
  });

  router.post('/audit-streams/:streamId/resend-set-aside', (req, res) =>
    change(
      req,
      res,
      (sent: { remaining: number }) => (sent.remaining > 0 ? 'resent-some' : 'resent'),
      (s, id) => streams('resendSetAside', { stream_id: id, actor_email: '' }, as(s)),
    ),
  );

  router.get('/audit-streams/:streamId/remove', async (req, res) => {
    const s = memberOf(res);
    const got = await streams(
      'getAuditStream',
      { stream_id: pathStream(req), deliveries: 1 },
      as(s),
    );
    const back = { href: `/brands/${s.brand.id}/audit-streams`, label: 'Back to audit streams' };
    const page = { title: 'Remove audit stream', section: 'auditStreams' as const, back };
    if (refusedToRole(res, s, 'audit_streams.manage', { ...page, what: 'remove audit streams' }))
      return;
    sendPage(res, RemoveStreamPage({ viewer: viewerOf(s), stream: got.stream! }));
  });

  router.post('/audit-streams/:streamId/remove', async (req, res) => {
    const s = memberOf(res);
    await streams('removeAuditStream', { stream_id: pathStream(req), actor_email: '' }, as(s));
    await listPage(res, s, { notice: 'The stream is removed: it is sent nothing more.' });
  });
}
