import { status } from '@grpc/grpc-js';
import type { Router } from 'express';
import type { ConsoleDeps } from '../../consoleDeps';
import { ServiceCallError } from '../../clients/memberCaller';
import { ConsoleHttpError } from '../../http/consoleHttpError';
import { signInClientOf } from '../../session/signInClient';
import { sendPage } from '../../views/render';
import { brandOfQuery, SsoStartForm } from '../sso/input';
import { clientKey, finishSignIn } from './finishSignIn';
import { clearBrowserBinding, newBrowserBinding, readBrowserBinding } from './ssoBrowserBinding';
import { ContinueToProviderPage, SsoSignInPage } from './ssoSignInView';

/**
 * How a refused start is answered: no brand for the address, too many starts, a bad form, and
 * a provider records will not use (sso_provider_refused: its discovery document breaks the
 * egress policy, or is oversized, slow or unusable; issue 42, where that was a 500).
 */
const START_REFUSALS = new Map<number, number>([
  [status.NOT_FOUND, 404],
  [status.RESOURCE_EXHAUSTED, 429],
  [status.INVALID_ARGUMENT, 400],
  [status.FAILED_PRECONDITION, 422],
]);

/**
 * Signing in with a brand's identity provider (OpenID Connect, authorization code with PKCE).
 * Records makes and keeps the state, nonce and verifier and checks everything the provider
 * answers; the console binds the attempt to this browser with a cookie, sends the person to the
 * provider and carries the callback back to records. Registered before the sign-in link
 * routes: /sign-in/sso is not a link token.
 */
export function registerSsoSignIn(router: Router, deps: ConsoleDeps): void {
  const { clients, publicOrigin: origin } = deps;

  router.get('/sign-in/sso', (req, res) => {
    sendPage(res, SsoSignInPage({ brand: brandOfQuery(req.query.brand) }));
  });

  router.post('/sign-in/sso', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const typed = typeof body.email === 'string' ? body.email.slice(0, 254) : '';
    const parsed = SsoStartForm.safeParse(body);
    if (!parsed.success || (parsed.data.email === '' && parsed.data.brand === '')) {
      const error = parsed.success
        ? 'Enter your work email address.'
        : parsed.error.issues[0]?.message;
      sendPage(res, SsoSignInPage({ email: typed, brand: brandOfQuery(body.brand), error }), 400);
      return;
    }
    let begun;
    try {
      begun = await clients.sso('beginSsoSignIn', {
        email: parsed.data.email,
        brand_id: parsed.data.brand,
        origin,
        browser_binding: newBrowserBinding(res),
        client_key: clientKey(req),
      });
    } catch (err) {
      if (!(err instanceof ServiceCallError)) throw err;
      const httpStatus = START_REFUSALS.get(err.grpcStatus);
      if (httpStatus === undefined) throw err;
      if (err.retryAfterSeconds !== undefined) {
        res.setHeader('Retry-After', String(err.retryAfterSeconds));
      }
      clearBrowserBinding(res);
      res.setHeader('X-Console-Error', err.code);
      const page = { email: typed, brand: parsed.data.brand, error: err.message };
      sendPage(res, SsoSignInPage(page), httpStatus);
      return;
    }
    // A page with the link, not a redirect: the sign-in page's CSP (form-action 'self') would
    // stop a form's redirect to another origin.
    sendPage(
      res,
      ContinueToProviderPage({ url: begun.authorization_url, brandName: begun.brand_name }),
    );
  });

  router.get('/sign-in/sso/callback', async (req, res) => {
    const binding = readBrowserBinding(req);
    let opened;
    try {
      opened = await clients.sso('finishSsoSignIn', {
        origin,
        // As the browser asked for it, under the console's public origin (never the Host header).
        callback_url: `${origin}${req.originalUrl}`,
        browser_binding: binding,
        client: signInClientOf(req),
      });
    } catch (err) {
      // A state this browser did not start leaves its binding: a cross-site page sending the
      // browser here (the cookie is SameSite=Lax) must not cancel a sign-in in progress (a hostile
      // review, 2026-11-30). Any other outcome spent the state, and the binding with it.
      if (err instanceof ServiceCallError && err.code === 'invalid_sso_state') {
        throw new ConsoleHttpError(400, err.code, err.message);
      }
      clearBrowserBinding(res);
      if (err instanceof ServiceCallError && err.grpcStatus === status.UNAUTHENTICATED) {
        throw new ConsoleHttpError(401, err.code, err.message);
      }
      throw err;
    }
    clearBrowserBinding(res);
    await finishSignIn(req, res, opened, clients.sessions);
  });
}
