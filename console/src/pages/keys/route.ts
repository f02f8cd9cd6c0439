import type { Request, Response, Router } from 'express';
import { roleAllows } from '@brand/shared/console';
import { ENVIRONMENTS, KEY_OVERLAPS } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../consoleDeps';
import { repeatLocation, repeatNotice } from '../../forms/repeatedForm';
import { ONCE_FIELD } from '../../forms/submitOnce';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { CreateKeyForm, KEY_ID, requestedExpiry, RollKeyForm } from './input';
import { keyState } from './keyState';
import { registerKeyNetworks, splitNetworks } from './networksRoute';
import {
  ExpireKeyPage,
  KeyCreatedPage,
  KeysPage,
  RevokeKeyPage,
  RollKeyPage,
  type KeysPageProps,
} from './view';
import { ownersOnlyKeyPage } from './ownersOnlyKeyPage';
import { refusedToRole } from '../refusedToRole';

/** What the one-time reveal holds between creating (or rolling) a key and showing it. */
interface CreatedKey {
  name: string;
  prefix: string;
  secret: string;
  replaced?: { prefix: string; expiresAt: string };
}

/** The page a new or rolled key's secret is shown on (and only there), without its reveal id. */
const keyCreatedPage = (brandId: string) => `/brands/${brandId}/keys/created`;

/** The list's notice when a roll's form was posted again after its replacement was shown. */
const ALREADY_ROLLED =
  'This key was already rolled from this form: its replacement was shown once, on the first submission. If nobody copied it, revoke the replacement below and roll the old key again while it still works, or create a new key.';

/** The list's notice when the create form was posted again after its key was shown. */
const ALREADY_CREATED =
  'This key was already created from this form: its secret was shown once, on the first submission. If nobody copied it, revoke the key below and create another.';

/**
 * The keys page: list, create (the key shown once on a page that cannot be shown again,
 * optionally with an expiry), roll (a replacement shown once, the old key expiring after the
 * chosen overlap), expire now and revoke, each with confirmation. Records decides who may do
 * what; the console hides the forms a member's role would be refused.
 */
export function registerKeys(router: Router, deps: ConsoleDeps): void {
  const listPage = async (
    res: Response,
    s: MemberSession,
    extra: Partial<KeysPageProps> = {},
    httpStatus = 200,
  ) => {
    const { keys, require_key_networks: requireKeyNetworks } = await deps.clients.access(
      'listKeys',
      { brand_id: s.brand.id },
      { assertion: s.assertion },
    );
    sendPage(
      res,
      KeysPage({
        viewer: viewerOf(s),
        keys,
        canManage: roleAllows(s.role, 'keys.create'),
        requireKeyNetworks,
        onceToken: deps.submitOnce.token(),
        ...extra,
      }),
      httpStatus,
    );
  };

  router.get('/keys', async (req: Request, res) => {
    const s = memberOf(res);
    const revoked = typeof req.query.revoked === 'string' ? req.query.revoked : undefined;
    const expired = typeof req.query.expired === 'string' ? req.query.expired : undefined;
    const networks = typeof req.query.networks === 'string';
    const policy = req.query.policy;
    const notice =
      (req.query.repeat === 'rolled' ? ALREADY_ROLLED : undefined) ??
      repeatNotice(req.query.repeat, ALREADY_CREATED, 'key') ??
      (revoked
        ? 'The key is revoked. It no longer works.'
        : expired
          ? 'The key has expired. It no longer works.'
          : networks
            ? "The key's allowed networks are saved. Every gateway uses them from its next request."
            : policy === 'on'
              ? 'Every new key must now have allowed networks. Keys without them keep working: they are flagged below.'
              : policy === 'off'
                ? 'New keys may now work from any network.'
                : undefined);
    await listPage(res, s, notice ? { notice } : {});
  });

  router.post('/keys', async (req, res) => {
    const s = memberOf(res);
    const body = req.body as Record<string, unknown>;
    const form = {
      name: typeof body.name === 'string' ? body.name.slice(0, 200) : '',
      environment: typeof body.environment === 'string' ? body.environment : 'live',
      campaignsPrepare: body.campaigns_prepare === 'on',
      auditRead: body.audit_read === 'on',
      networks:
        typeof body.allowed_networks === 'string' ? body.allowed_networks.slice(0, 4000) : '',
      expires: typeof body.expires === 'string' ? body.expires.slice(0, 10) : 'none',
      expiresAt: typeof body.expires_at === 'string' ? body.expires_at.slice(0, 40) : '',
    };
    const parsed = CreateKeyForm.safeParse(body);
    if (!parsed.success) {
      await listPage(res, s, { form, error: parsed.error.issues[0]?.message }, 400);
      return;
    }
    const expiry = requestedExpiry(parsed.data);
    if ('error' in expiry) {
      await listPage(res, s, { form, error: expiry.error }, 400);
      return;
    }
    // A double click, a retry or back-and-resubmit posts this form again: one key, not two.
    const once = await deps.submitOnce.claim(s.token, s.brand.id, 'keys.create', body[ONCE_FIELD]);
    if (once.kind === 'stale') {
      const error = 'This form is out of date. Check the list below, then create the key again.';
      await listPage(res, s, { form, error }, 400);
      return;
    }
    if (once.kind === 'repeat') {
      res.redirect(303, repeatLocation(`/brands/${s.brand.id}/keys`, once));
      return;
    }
    try {
      const created = await deps.clients.access(
        'createKey',
        {
          brand_id: s.brand.id,
          name: parsed.data.name,
          environment: ENVIRONMENTS.toProto(parsed.data.environment),
          actor_email: '',
          permissions: [
            ...(parsed.data.campaigns_prepare ? ['campaigns:prepare'] : []),
            ...(parsed.data.audit_read ? ['audit:read'] : []),
          ],
          expires_at: expiry.expiresAt,
          allowed_networks: splitNetworks(parsed.data.allowed_networks ?? ''),
        },
        { assertion: s.assertion },
      );
      const reveal: CreatedKey = {
        name: created.key?.name ?? parsed.data.name,
        prefix: created.key?.prefix ?? '',
        secret: created.secret,
      };
      const page = keyCreatedPage(s.brand.id);
      const id = await deps.reveal.put(s.token, page, reveal);
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
      await listPage(res, s, { form, error: refused.message }, refused.httpStatus);
    }
  });

  router.get('/keys/created/:revealId', async (req, res) => {
    const s = memberOf(res);
    const page = keyCreatedPage(s.brand.id);
    const created = (await deps.reveal.take(s.token, page, String(req.params.revealId))) as
      CreatedKey | undefined;
    sendPage(
      res,
      KeyCreatedPage({ viewer: viewerOf(s), created, gatewayUrl: deps.gatewayUrl }),
      created ? 200 : 410,
    );
  });

  /** The brand's key named in the path, or 404 (another brand's key does not exist here). */
  const pathKey = async (req: Request, s: MemberSession) => {
    const keyId = String(req.params.keyId);
    if (!KEY_ID.test(keyId)) throw notFound();
    const { keys } = await deps.clients.access(
      'listKeys',
      { brand_id: s.brand.id },
      { assertion: s.assertion },
    );
    const apiKey = keys.find((k) => k.id === keyId);
    if (!apiKey) throw notFound();
    return apiKey;
  };

  registerKeyNetworks(router, deps, { pathKey, listPage });

  router.get('/keys/:keyId/revoke', async (req, res) => {
    const s = memberOf(res);
    const apiKey = await pathKey(req, s);
    if (refusedToRole(res, s, 'keys.revoke', ownersOnlyKeyPage(s, 'Revoke key', 'revoke keys')))
      return;
    sendPage(res, RevokeKeyPage({ viewer: viewerOf(s), apiKey }));
  });

  router.get('/keys/:keyId/roll', async (req, res) => {
    const s = memberOf(res);
    const apiKey = await pathKey(req, s);
    if (refusedToRole(res, s, 'keys.roll', ownersOnlyKeyPage(s, 'Roll key', 'roll keys'))) return;
    sendPage(res, RollKeyPage({ viewer: viewerOf(s), apiKey, onceToken: deps.submitOnce.token() }));
  });

  router.post('/keys/:keyId/roll', async (req, res) => {
    const s = memberOf(res);
    const keyId = String(req.params.keyId);
    if (!KEY_ID.test(keyId)) throw notFound();
    const parsed = RollKeyForm.safeParse(req.body);
    if (!parsed.success) {
      const apiKey = await pathKey(req, s);
      const error = parsed.error.issues[0]?.message;
      const onceToken = deps.submitOnce.token();
      sendPage(res, RollKeyPage({ viewer: viewerOf(s), apiKey, onceToken, error }), 400);
      return;
    }
    // A double click on "Roll key": the second post would be refused (already rolled) and the
    // replacement's one page lost with the first answer; it gets that page instead.
    const body = req.body as Record<string, unknown>;
    const once = await deps.submitOnce.claim(
      s.token,
      s.brand.id,
      `keys.roll:${keyId}`,
      body[ONCE_FIELD],
    );
    if (once.kind === 'stale') {
      const apiKey = await pathKey(req, s);
      const error = 'This form is out of date. Check the key, then roll it again.';
      const onceToken = deps.submitOnce.token();
      sendPage(res, RollKeyPage({ viewer: viewerOf(s), apiKey, onceToken, error }), 400);
      return;
    }
    if (once.kind === 'repeat') {
      const list = `/brands/${s.brand.id}/keys`;
      res.redirect(
        303,
        repeatLocation(list, once, { created: 'rolled', unfinished: 'unfinished' }),
      );
      return;
    }
    try {
      const rolled = await deps.clients.access(
        'rollKey',
        {
          key_id: keyId,
          old_key_expires_in: KEY_OVERLAPS.toProto(parsed.data.old_key_expires_in),
          actor_email: '',
        },
        { assertion: s.assertion },
      );
      const reveal: CreatedKey = {
        name: rolled.key?.name ?? '',
        prefix: rolled.key?.prefix ?? '',
        secret: rolled.secret,
        replaced: {
          prefix: rolled.replaced?.prefix ?? '',
          expiresAt: rolled.replaced?.expires_at ?? '',
        },
      };
      const page = keyCreatedPage(s.brand.id);
      const id = await deps.reveal.put(s.token, page, reveal);
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
      await listPage(res, s, { error: refused.message }, refused.httpStatus);
    }
  });

  router.get('/keys/:keyId/expire', async (req, res) => {
    const s = memberOf(res);
    const apiKey = await pathKey(req, s);
    // Only a key counting down has an overlap to end; anything else goes back to the list.
    if (keyState(apiKey, Date.now()) !== 'expiring') {
      res.redirect(303, `/brands/${s.brand.id}/keys`);
      return;
    }
    sendPage(res, ExpireKeyPage({ viewer: viewerOf(s), apiKey }));
  });

  router.post('/keys/:keyId/expire', async (req, res) => {
    const s = memberOf(res);
    const keyId = String(req.params.keyId);
    if (!KEY_ID.test(keyId)) throw notFound();
    try {
      await deps.clients.access(
        'setKeyExpiry',
        { key_id: keyId, now: true, expires_at: '', actor_email: '' },
        { assertion: s.assertion },
      );
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await listPage(res, s, { error: refused.message }, refused.httpStatus);
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/keys?expired=${keyId}`);
  });

  router.post('/keys/:keyId/revoke', async (req, res) => {
    const s = memberOf(res);
    const keyId = String(req.params.keyId);
    if (!KEY_ID.test(keyId)) throw notFound();
    await deps.clients.access(
      'revokeKey',
      { key_id: keyId, actor_email: '' },
      { assertion: s.assertion },
    );
    res.redirect(303, `/brands/${s.brand.id}/keys?revoked=${keyId}`);
  });
}
