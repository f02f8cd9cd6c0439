import { status } from '@grpc/grpc-js';
import type { Response, Router } from 'express';
import type { ConsoleDeps } from '../../consoleDeps';
import { ServiceCallError } from '../../clients/memberCaller';
import { runFormChange } from '../../http/formChange';
import { formRefusal } from '../../http/formRefusal';
import { notFound, requireSession, signedInOf, type SignedIn } from '../../session/memberSession';
import { doneNoticeOf } from '../../views/doneNotice';
import { sendPage } from '../../views/render';
import { sendCeremonyOptions } from './ceremonyOptions';
import { AddPasskeyForm, PASSKEY_ID } from './input';
import { PasskeysPage } from './view';

const NOTICES: Record<string, string> = {
  added: 'Passkey added. Next time, choose “Sign in with a passkey” on the sign-in page.',
  removed: 'Passkey removed. It no longer signs you in.',
};

/**
 * Passkeys: a person's own list (add, remove); signing in with one is signIn/passkeySignInRoute.ts.
 * Records makes the WebAuthn options, keeps the challenges and verifies every answer against
 * the console's public origin; this only carries them between the browser
 * (/static/passkey.js) and records.
 */
export function registerPasskeys(router: Router, deps: ConsoleDeps): void {
  const { clients, publicOrigin: origin } = deps;
  const signedIn = requireSession(clients, { brand: false });

  const listPage = async (
    res: Response,
    s: SignedIn,
    extra: { notice?: string; error?: string; name?: string } = {},
    httpStatus = 200,
  ) => {
    // A session opened by a brand's single sign-on does not prove the address, so records
    // neither lists its passkeys nor changes them for it; the page says why instead.
    const { passkeys } = s.ssoBrand
      ? { passkeys: [] }
      : await clients.passkeys('listPasskeys', { session_token: s.token });
    sendPage(
      res,
      PasskeysPage({
        email: s.email,
        csrfToken: s.csrfToken,
        passkeys,
        signedInBy: { method: s.signInMethod, ssoBrandName: s.ssoBrand?.name },
        ...extra,
      }),
      httpStatus,
    );
  };

  router.get('/passkeys', signedIn, async (req, res) => {
    const done = doneNoticeOf(NOTICES, req.query.done);
    await listPage(res, signedInOf(res), { notice: done });
  });

  router.post('/passkeys/options', signedIn, async (_req, res) => {
    const s = signedInOf(res);
    await sendCeremonyOptions(res, () =>
      clients.passkeys('beginPasskeyRegistration', { session_token: s.token, origin }),
    );
  });

  router.post('/passkeys', signedIn, async (req, res) => {
    const s = signedInOf(res);
    const parsed = AddPasskeyForm.safeParse(req.body);
    const typed = (req.body as { name?: unknown }).name;
    const name = typeof typed === 'string' ? typed.slice(0, 60) : '';
    if (!parsed.success) {
      await listPage(res, s, { name, error: parsed.error.issues[0]?.message }, 400);
      return;
    }
    try {
      await clients.passkeys('finishPasskeyRegistration', {
        session_token: s.token,
        origin,
        name: parsed.data.name,
        response_json: parsed.data.response,
      });
    } catch (err) {
      const refused = refusalOf(err);
      if (!refused) throw err;
      res.setHeader('X-Console-Error', refused.code);
      await listPage(res, s, { name, error: refused.message }, refused.httpStatus);
      return;
    }
    res.redirect(303, '/passkeys?done=added');
  });

  router.post('/passkeys/:passkeyId/remove', signedIn, async (req, res) => {
    const passkeyId = String(req.params.passkeyId);
    if (!PASSKEY_ID.test(passkeyId)) throw notFound();
    const s = signedInOf(res);
    // refused (a link session, a brand's single sign-on): the page again, saying why
    await runFormChange(
      res,
      () => clients.passkeys('removePasskey', { session_token: s.token, passkey_id: passkeyId }),
      {
        doneUrl: '/passkeys?done=removed',
        refused: (error, httpStatus) => listPage(res, s, { error }, httpStatus),
      },
    );
  });
}

/** A refused ceremony (invalid_passkey included) as a status, its code and the service's sentence. */
export function refusalOf(
  err: unknown,
): { httpStatus: number; message: string; code: string } | undefined {
  if (err instanceof ServiceCallError && err.grpcStatus === status.UNAUTHENTICATED) {
    return { httpStatus: 401, message: err.message, code: err.code };
  }
  return formRefusal(err);
}
