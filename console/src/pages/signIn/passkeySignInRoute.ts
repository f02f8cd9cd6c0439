import type { Router } from 'express';
import type { ConsoleDeps } from '../../consoleDeps';
import { signInClientOf } from '../../session/signInClient';
import { sendPage } from '../../views/render';
import { sendCeremonyOptions } from '../passkeys/ceremonyOptions';
import { PasskeySignInForm } from '../passkeys/input';
import { refusalOf } from '../passkeys/route';
import { clientKey, finishSignIn } from './finishSignIn';
import { SignInPage } from './view';

/**
 * Signing in with a passkey: records makes the challenge (throttled per client) and verifies
 * the browser's answer against the console's public origin. Registered before the sign-in link
 * routes: /sign-in/passkey is not a link token.
 */
export function registerPasskeySignIn(router: Router, deps: ConsoleDeps): void {
  const { clients, publicOrigin: origin } = deps;

  router.post('/sign-in/passkey/options', async (req, res) => {
    await sendCeremonyOptions(res, () =>
      clients.passkeys('beginPasskeySignIn', { origin, client_key: clientKey(req) }),
    );
  });

  router.post('/sign-in/passkey', async (req, res) => {
    const parsed = PasskeySignInForm.safeParse(req.body);
    const refuse = (httpStatus: number) =>
      sendPage(
        res,
        SignInPage({
          error: 'Your passkey did not sign you in. Try again, or ask for an emailed link below.',
        }),
        httpStatus,
      );
    if (!parsed.success) {
      refuse(400);
      return;
    }
    let opened;
    try {
      opened = await clients.passkeys('finishPasskeySignIn', {
        origin,
        response_json: parsed.data.response,
        client: signInClientOf(req),
      });
    } catch (err) {
      const refused = refusalOf(err);
      if (!refused) throw err;
      refuse(refused.httpStatus);
      return;
    }
    await finishSignIn(req, res, opened, clients.sessions);
  });
}
