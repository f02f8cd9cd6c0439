import type { Response, Router } from 'express';
import { roleAllows } from '@brand/shared/console';
import { ROLES } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../consoleDeps';
import { repeatLocation, repeatNotice } from '../../forms/repeatedForm';
import { ONCE_FIELD, type FirstPost } from '../../forms/submitOnce';
import { formRefusal } from '../../http/formRefusal';
import { changedWhileSavingMessage, decideOntoRead } from '../../forms/ontoWhatWasRead';
import { changedFields, conflictMessage, keptForm } from '../../forms/shownFields';
import { runFormChange } from '../../http/formChange';
import { memberOf, notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { doneNoticeOf } from '../../views/doneNotice';
import { sendPage } from '../../views/render';
import {
  MappingForm,
  RemoveMappingForm,
  RotateForm,
  SettingsForm,
  TOKEN_ID,
  TokenForm,
} from './input';
import {
  ProvisioningNotAllowedPage,
  ProvisioningPage,
  ScimTokenCreatedPage,
  shownSettings,
  type SettingsFormValues,
} from './view';

/** The page's notice when the new-token form was posted again after its token was shown. */
const ALREADY_MADE =
  'This token was already made from this form: it was shown once, on the first submission. If nobody copied it, revoke it below and make another.';

/**
 * The page's notices for a rotate form posted again (`?repeat=`): after its replacement was
 * shown (the old token counts down, and a token counting down offers no Rotate), or while
 * the first post had not finished.
 */
const ROTATE_REPEATS: Record<string, string> = {
  rotated:
    'This token was already rotated from this form: its replacement was shown once, on the first submission. If nobody copied it, revoke the replacement below and make a new token; the old one works only until the time shown beside it.',
  'rotate-unfinished':
    'This rotation was already submitted, and that submission did not finish. Check the tokens below before rotating again.',
};

/** The settings as a conflict names them. */
const SETTING_WORDS = {
  jit_enabled: 'just-in-time membership',
  jit_groups_claim: 'groups claim',
  revoke_keys_on_deprovision: 'revoking a deprovisioned person’s keys',
} as const;

const NOTICES: Record<string, string> = {
  revoked: 'Token revoked: the provider’s requests with it are refused from now.',
  mapped: 'Saved. Every provisioned member’s role follows it now.',
  unmapped: 'Mapping removed. Every provisioned member’s role follows it now.',
  settings: 'Saved.',
};

/** The page a new SCIM token is shown on (and only there), without its reveal id. */
const tokenCreatedPage = (brandId: string) => `/brands/${brandId}/provisioning/tokens/created`;

/** What the one-time reveal holds between making a token and showing it. */
interface CreatedToken {
  name: string;
  secret: string;
}

/**
 * Provisioning (owners only, members.provisioning): records decides every change and checks the
 * role itself; the page shows a refusal on the page with the service's sentence.
 */
export function registerProvisioning(router: Router, deps: ConsoleDeps): void {
  const page = async (
    res: Response,
    s: MemberSession,
    extra: {
      notice?: string;
      error?: string;
      settingsForm?: SettingsFormValues;
      conflicts?: readonly string[];
    } = {},
    httpStatus = 200,
  ) => {
    const p = await deps.clients.provisioning(
      'getProvisioning',
      { brand_id: s.brand.id },
      { assertion: s.assertion },
    );
    sendPage(
      res,
      ProvisioningPage({
        viewer: viewerOf(s),
        origin: deps.publicOrigin,
        p,
        onceToken: deps.submitOnce.token(),
        // read by the attention notice's loader for every page (undefined: webhooks unreachable)
        receivers: s.receivers,
        ...extra,
      }),
      httpStatus,
    );
  };

  /** Runs a change; a refusal is shown on the page, anything else goes to the error page. */
  const change = (res: Response, s: MemberSession, run: () => Promise<unknown>, done: string) =>
    runFormChange(res, run, {
      doneUrl: `/brands/${s.brand.id}/provisioning?done=${done}`,
      refused: (error, httpStatus) => page(res, s, { error }, httpStatus),
    });

  const refuseInput = async (res: Response, s: MemberSession, message: string | undefined) =>
    page(res, s, { error: message ?? 'Check the form.' }, 400);

  router.get('/provisioning', async (req, res) => {
    const s = memberOf(res);
    if (!roleAllows(s.role, 'members.provisioning')) {
      sendPage(res, ProvisioningNotAllowedPage({ viewer: viewerOf(s) }), 403);
      return;
    }
    const done = doneNoticeOf(NOTICES, req.query.done);
    const repeat = req.query.repeat;
    const rotated =
      typeof repeat === 'string' && Object.hasOwn(ROTATE_REPEATS, repeat)
        ? ROTATE_REPEATS[repeat]
        : undefined;
    const notice = rotated ?? repeatNotice(repeat, ALREADY_MADE, 'token') ?? done;
    await page(res, s, { notice });
  });

  /** Makes a token (or a rotation's replacement) and shows it once. */
  const reveal = async (
    res: Response,
    s: MemberSession,
    made: () => Promise<{ name: string; secret: string }>,
    once?: FirstPost,
  ) => {
    let created: CreatedToken;
    try {
      created = await made();
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) {
        await once?.failed();
        throw err;
      }
      await once?.release();
      res.setHeader('X-Console-Error', refused.code);
      await page(res, s, { error: refused.message }, refused.httpStatus);
      return;
    }
    const shownOn = tokenCreatedPage(s.brand.id);
    const id = await deps.reveal.put(s.token, shownOn, created);
    const location = `${shownOn}/${id}`;
    await once?.done(location, id);
    res.redirect(303, location);
  };

  router.post('/provisioning/tokens', async (req, res) => {
    const s = memberOf(res);
    const parsed = TokenForm.safeParse(req.body);
    if (!parsed.success) return refuseInput(res, s, parsed.error.issues[0]?.message);
    // A double click, a retry or back-and-resubmit posts this form again: one token.
    const posted = (req.body as Record<string, unknown>)[ONCE_FIELD];
    const once = await deps.submitOnce.claim(s.token, s.brand.id, 'scim_tokens.create', posted);
    if (once.kind === 'stale') {
      return refuseInput(
        res,
        s,
        'This form is out of date. Check the tokens below, then make the token again.',
      );
    }
    if (once.kind === 'repeat') {
      res.redirect(303, repeatLocation(`/brands/${s.brand.id}/provisioning`, once));
      return;
    }
    await reveal(
      res,
      s,
      async () => {
        const r = await deps.clients.provisioning(
          'createScimToken',
          { brand_id: s.brand.id, name: parsed.data.name },
          { assertion: s.assertion },
        );
        return { name: r.token?.name ?? parsed.data.name, secret: r.secret };
      },
      once,
    );
  });

  router.get('/provisioning/tokens/created/:revealId', async (req, res) => {
    const s = memberOf(res);
    const shownOn = tokenCreatedPage(s.brand.id);
    const taken = (await deps.reveal.take(s.token, shownOn, String(req.params.revealId))) as
      CreatedToken | undefined;
    sendPage(
      res,
      ScimTokenCreatedPage({
        viewer: viewerOf(s),
        created: taken && { ...taken, origin: deps.publicOrigin },
      }),
      taken ? 200 : 410,
    );
  });

  router.post('/provisioning/tokens/:tokenId/rotate', async (req, res) => {
    const s = memberOf(res);
    const tokenId = String(req.params.tokenId);
    if (!TOKEN_ID.test(tokenId)) throw notFound();
    const parsed = RotateForm.safeParse(req.body);
    if (!parsed.success) return refuseInput(res, s, parsed.error.issues[0]?.message);
    // A double click on "Rotate": the old token, still working through its overlap, was rotated
    // again, and the first replacement's one page lost; the repeat gets that page instead.
    const posted = (req.body as Record<string, unknown>)[ONCE_FIELD];
    const once = await deps.submitOnce.claim(
      s.token,
      s.brand.id,
      `scim_tokens.rotate:${tokenId}`,
      posted,
    );
    if (once.kind === 'stale') {
      return refuseInput(
        res,
        s,
        'This form is out of date. Check the tokens below, then rotate the token again.',
      );
    }
    if (once.kind === 'repeat') {
      const words = { created: 'rotated', unfinished: 'rotate-unfinished' };
      res.redirect(303, repeatLocation(`/brands/${s.brand.id}/provisioning`, once, words));
      return;
    }
    await reveal(
      res,
      s,
      async () => {
        const r = await deps.clients.provisioning(
          'rotateScimToken',
          { token_id: tokenId, old_token_expires_in: parsed.data.old_token_expires_in },
          { assertion: s.assertion },
        );
        return { name: r.token?.name ?? '', secret: r.secret };
      },
      once,
    );
  });

  router.post('/provisioning/tokens/:tokenId/revoke', async (req, res) => {
    const s = memberOf(res);
    const tokenId = String(req.params.tokenId);
    if (!TOKEN_ID.test(tokenId)) throw notFound();
    await change(
      res,
      s,
      () =>
        deps.clients.provisioning(
          'revokeScimToken',
          { token_id: tokenId },
          { assertion: s.assertion },
        ),
      'revoked',
    );
  });

  router.post('/provisioning/mappings', async (req, res) => {
    const s = memberOf(res);
    const parsed = MappingForm.safeParse(req.body);
    if (!parsed.success) return refuseInput(res, s, parsed.error.issues[0]?.message);
    await change(
      res,
      s,
      () =>
        deps.clients.provisioning(
          'setRoleMapping',
          {
            brand_id: s.brand.id,
            group_key: parsed.data.group_key,
            role: ROLES.toProto(parsed.data.role),
          },
          { assertion: s.assertion },
        ),
      'mapped',
    );
  });

  router.post('/provisioning/mappings/remove', async (req, res) => {
    const s = memberOf(res);
    const parsed = RemoveMappingForm.safeParse(req.body);
    if (!parsed.success) return refuseInput(res, s, parsed.error.issues[0]?.message);
    await change(
      res,
      s,
      () =>
        deps.clients.provisioning(
          'removeRoleMapping',
          { brand_id: s.brand.id, group_key: parsed.data.group_key },
          { assertion: s.assertion },
        ),
      'unmapped',
    );
  });

  router.post('/provisioning/settings', async (req, res) => {
    const s = memberOf(res);
    const parsed = SettingsForm.safeParse(req.body);
    if (!parsed.success) return refuseInput(res, s, parsed.error.issues[0]?.message);
    // The settings are stored whole: what the person did not change is taken from them as they
    // are now, not from the page, which another owner may have saved over since it was opened
    // (forms/shownFields.ts): "revoke the keys" turned on was turned off again by a save of the
    // groups claim from an older page (a hostile review of lost updates, 2026-12-01). Written only
    // over the settings it was decided on (if_settings), read again and decided once more if they
    // changed before the write (forms/ontoWhatWasRead.ts).
    const readSettings = async () =>
      (
        await deps.clients.provisioning(
          'getProvisioning',
          { brand_id: s.brand.id },
          { assertion: s.assertion },
        )
      ).settings;
    const posted = {
      jit_enabled: parsed.data.jit_enabled ?? '',
      jit_groups_claim: parsed.data.jit_groups_claim,
      revoke_keys_on_deprovision: parsed.data.revoke_keys_on_deprovision ?? '',
    };
    const read = await readSettings();
    let saved;
    try {
      saved = await decideOntoRead({
        read,
        readAgain: readSettings,
        decide: (settings) =>
          changedFields(req.body as Record<string, unknown>, posted, shownSettings(settings)),
        write: async (settings, { changes }) => {
          const next = { ...shownSettings(settings), ...changes };
          await deps.clients.provisioning(
            'setProvisioningSettings',
            {
              brand_id: s.brand.id,
              settings: {
                jit_enabled: next.jit_enabled === 'on',
                jit_groups_claim: next.jit_groups_claim,
                revoke_keys_on_deprovision: next.revoke_keys_on_deprovision === 'on',
              },
              if_settings: settings,
            },
            { assertion: s.assertion },
          );
        },
      });
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      res.setHeader('X-Console-Error', refused.code);
      await page(res, s, { error: refused.message }, refused.httpStatus);
      return;
    }
    if (saved.outcome !== 'written') {
      const now = shownSettings(saved.read);
      const { conflicts } = saved.decided;
      res.setHeader('X-Console-Error', 'edit_conflict');
      const error =
        conflicts.length > 0
          ? conflictMessage(
              conflicts.map((f) => ({ label: SETTING_WORDS[f], now: now[f] || 'off' })),
            )
          : changedWhileSavingMessage('provisioning settings');
      // what the person changed as they set it, the rest as it is now
      const settingsForm = keptForm(posted, now, saved.decided);
      await page(res, s, { error, settingsForm, conflicts }, 409);
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/provisioning?done=settings`);
  });
}
