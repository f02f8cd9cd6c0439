import type { Router } from 'express';
import type { ConsoleClients } from '../../clients/consoleClients';
import { notFound, requireSession, signedInOf } from '../../session/memberSession';
import { clearSessionCookie } from '../../session/sessionCookie';
import { doneNoticeOf } from '../../views/doneNotice';
import { sendPage } from '../../views/render';
import { SESSION_ID } from './input';
import { SessionsPage } from './view';

const NOTICES: Record<string, string> = {
  ended: 'That session is signed out. Its next request goes to the sign-in page.',
  others: 'Every other session is signed out.',
};

/**
 * "Your sessions": the live sessions of the signed-in address, on every device, with sign-out
 * of one or of all but this one. A page of the person, not of a brand. Records scopes every
 * call by the session's own address, so another address's session id is 404; a session opened
 * by a brand's single sign-on sees and ends only the sessions that brand's single sign-on opened.
 */
export function registerSessions(router: Router, clients: ConsoleClients): void {
  const signedIn = requireSession(clients, { brand: false });

  router.get('/sessions', signedIn, async (req, res) => {
    const s = signedInOf(res);
    const { sessions } = await clients.sessions('listConsoleSessions', { session_token: s.token });
    const done = doneNoticeOf(NOTICES, req.query.done);
    sendPage(
      res,
      SessionsPage({
        email: s.email,
        csrfToken: s.csrfToken,
        sessions,
        notice: done,
        ssoBrandName: s.ssoBrand?.name,
      }),
    );
  });

  router.post('/sessions/others/end', signedIn, async (_req, res) => {
    await clients.sessions('endOtherConsoleSessions', { session_token: signedInOf(res).token });
    res.redirect(303, '/sessions?done=others');
  });

  router.post('/sessions/:sessionId/end', signedIn, async (req, res) => {
    const sessionId = String(req.params.sessionId);
    if (!SESSION_ID.test(sessionId)) throw notFound();
    const r = await clients.sessions('endConsoleSession', {
      session_token: signedInOf(res).token,
      session_id: sessionId,
    });
    if (r.ended_current) {
      clearSessionCookie(res);
      res.redirect(303, '/sign-in?signed_out=1');
      return;
    }
    res.redirect(303, '/sessions?done=ended');
  });
}
