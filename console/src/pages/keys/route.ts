import type { Request, Response, Router } from 'express';
import { roleAllows } from '@brand/shared/console';
import { ENVIRONMENTS } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../app';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { CreateKeyForm, KEY_ID } from './input';
import { KeyCreatedPage, KeysPage, RevokeKeyPage, type KeysPageProps } from './view';

/** What the one-time reveal holds between creating a key and showing it. */
interface CreatedKey {
  name: string;
  prefix: string;
  secret: string;
}

/**
 * The keys page: list, create (the key shown once on a page that cannot be shown again),
 * revoke with confirmation. Records decides who may create or revoke and with which
 * permissions; the console hides the forms a member's role would be refused.
 */
export function registerKeys(router: Router, deps: ConsoleDeps): void {
  const listPage = async (
    res: Response,
    s: MemberSession,
    extra: Partial<KeysPageProps> = {},
    httpStatus = 200,
  ) => {
    const { keys } = await deps.clients.access(
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
        ...extra,
      }),
      httpStatus,
    );
  };

  router.get('/keys', async (req: Request, res) => {
    const s = memberOf(res);
    const revoked = typeof req.query.revoked === 'string' ? req.query.revoked : undefined;
    await listPage(res, s, revoked ? { notice: 'The key is revoked. It no longer works.' } : {});
  });

  router.post('/keys', async (req, res) => {
    const s = memberOf(res);
    const body = req.body as Record<string, unknown>;
    const form = {
      name: typeof body.name === 'string' ? body.name.slice(0, 200) : '',
      environment: typeof body.environment === 'string' ? body.environment : 'live',
      campaignsPrepare: body.campaigns_prepare === 'on',
    };
    const parsed = CreateKeyForm.safeParse(body);
    if (!parsed.success) {
      await listPage(res, s, { form, error: parsed.error.issues[0]?.message }, 400);
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
          permissions: parsed.data.campaigns_prepare ? ['campaigns:prepare'] : [],
        },
        { assertion: s.assertion },
      );
      const reveal: CreatedKey = {
        name: created.key?.name ?? parsed.data.name,
        prefix: created.key?.prefix ?? '',
        secret: created.secret,
      };
      const id = await deps.reveal.put(s.token, reveal);
      res.redirect(303, `/brands/${s.brand.id}/keys/created/${id}`);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      await listPage(res, s, { form, error: refused.message }, refused.httpStatus);
    }
  });

  router.get('/keys/created/:revealId', async (req, res) => {
    const s = memberOf(res);
    const created = (await deps.reveal.take(s.token, String(req.params.revealId))) as
      CreatedKey | undefined;
    sendPage(
      res,
      KeyCreatedPage({ viewer: viewerOf(s), created, gatewayUrl: deps.gatewayUrl }),
      created ? 200 : 410,
    );
  });

  router.get('/keys/:keyId/revoke', async (req, res) => {
    const s = memberOf(res);
    const keyId = String(req.params.keyId);
    if (!KEY_ID.test(keyId)) throw notFound();
    const { keys } = await deps.clients.access(
      'listKeys',
      { brand_id: s.brand.id },
      { assertion: s.assertion },
    );
    const apiKey = keys.find((k) => k.id === keyId);
    if (!apiKey) throw notFound();
    sendPage(res, RevokeKeyPage({ viewer: viewerOf(s), apiKey }));
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
