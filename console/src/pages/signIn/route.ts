import { status } from '@grpc/grpc-js';
import type { Router } from 'express';
import type { ConsoleClients } from '../../clients/consoleClients';
import { ServiceCallError } from '../../clients/memberCaller';
import { ConsoleHttpError } from '../../http/consoleHttpError';
import { safeReturnPath } from '../../http/returnPath';
import { signInClientOf } from '../../session/signInClient';
import { sendPage } from '../../views/render';
import { clientKey, finishSignIn } from './finishSignIn';
import { LINK_TOKEN, SignInForm } from './input';
import { linkAddress } from './linkAddress';
import { clearReturnPath, hasReturnCookie, keepReturnPath } from './returnCookie';
import { CheckEmailPage, ConfirmSignInPage, InvalidLinkPage, SignInPage } from './view';

export interface SignInDeps {
  clients: ConsoleClients;
}

/**
 * Passwordless sign-in: the email form, the emailed one-time link (opened with GET, spent
 * with POST), and the session cookie. Records owns links and sessions (single use, 15
 * minutes, rate limited per address from one client and per client); the console sets
 * cookies, and its sign-in mail loop (mail/signInMailTurn.ts) mails the links.
 */
export function registerSignIn(router: Router, deps: SignInDeps): void {
  router.get('/sign-in', (req, res) => {
    // where to land once signed in (a 401 page's Sign in); a plain /sign-in forgets an older one
    const next = safeReturnPath(req.query.next);
    if (next) keepReturnPath(res, next);
    else if (hasReturnCookie(req)) clearReturnPath(res);
    const notice = req.query.signed_out === '1' ? 'You are signed out.' : undefined;
    sendPage(res, SignInPage({ notice }));
  });

  router.post('/sign-in', async (req, res) => {
    const parsed = SignInForm.safeParse(req.body);
    if (!parsed.success) {
      const typed = (req.body as { email?: unknown } | undefined)?.email;
      const email = typeof typed === 'string' ? typed.slice(0, 254) : '';
      sendPage(res, SignInPage({ email, error: parsed.error.issues[0]?.message }), 400);
      return;
    }
    const { email } = parsed.data;
    try {
      // Records only stores the request, the same work for a member and a stranger, so the
      // answer's timing tells nothing; the link is minted and mailed later, off this path
      // (mail/signInMailTurn.ts).
      await deps.clients.sessions('requestSignInLink', { email, client_key: clientKey(req) });
    } catch (err) {
      if (err instanceof ServiceCallError && err.grpcStatus === status.RESOURCE_EXHAUSTED) {
        const minutes = Math.max(1, Math.ceil((err.retryAfterSeconds ?? 60) / 60));
        res.setHeader('Retry-After', String(err.retryAfterSeconds ?? 60));
        sendPage(
          res,
          SignInPage({
            email,
            error: `Too many sign-in requests. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
          }),
          429,
        );
        return;
      }
      throw err;
    }
    sendPage(res, CheckEmailPage({ email }));
  });

  // The page names the address its button signs in: a link someone requested for their own
  // address and sent on (login CSRF: the victim would work in the sender's brands, as the
  // sender) reads as what it is. Opening it spends nothing (mail scanners follow links).
  router.get('/sign-in/:token', async (req, res) => {
    const token = req.params.token;
    if (!LINK_TOKEN.test(token)) {
      sendPage(res, InvalidLinkPage(), 400);
      return;
    }
    const link = await linkAddress(deps.clients.sessions, token);
    if (link.kind === 'invalid') {
      sendPage(res, InvalidLinkPage(), 400);
      return;
    }
    sendPage(
      res,
      ConfirmSignInPage({ token, email: link.kind === 'email' ? link.email : undefined }),
    );
  });

  router.post('/sign-in/:token', async (req, res) => {
    const token = req.params.token;
    if (!LINK_TOKEN.test(token)) {
      sendPage(res, InvalidLinkPage(), 400);
      return;
    }
    let session;
    try {
      session = await deps.clients.sessions('redeemSignInLink', {
        token,
        client: signInClientOf(req),
      });
    } catch (err) {
      if (err instanceof ServiceCallError && err.grpcStatus === status.UNAUTHENTICATED) {
        sendPage(res, InvalidLinkPage(), 400);
        return;
      }
      throw err;
    }
    if (!session.session_token) throw new ConsoleHttpError(502, 'internal_error', 'No session.');
    await finishSignIn(req, res, session, deps.clients.sessions);
  });
}
