import type { Router } from 'express';
import { roleAllows } from '@brand/shared/console';
import type { ConsoleDeps } from '../../consoleDeps';
import { clearSessionCookie } from '../../session/sessionCookie';
import { formRefusal } from '../../http/formRefusal';
import { memberOf, notFound, viewerOf } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { MemberSessionsNotAllowedPage, MemberSessionsPage } from './view';

const SESSION_ID = /^ses_[A-Za-z0-9]{1,64}$/;

/**
 * Members' sessions (owners only): the brand's single sign-on sessions, any member's, and
 * ending one. Records checks the role and that the session is this brand's; another brand's
 * session is not found, whoever asks.
 */
export function registerMemberSessions(router: Router, deps: ConsoleDeps): void {
  router.get('/members/sessions', async (req, res) => {
    const s = memberOf(res);
    if (!roleAllows(s.role, 'members.sessions')) {
      sendPage(res, MemberSessionsNotAllowedPage({ viewer: viewerOf(s) }), 403);
      return;
    }
    const { sessions } = await deps.clients.sso(
      'listBrandSsoSessions',
      { brand_id: s.brand.id, session_token: s.token },
      { assertion: s.assertion },
    );
    const notice = req.query.done === 'ended' ? 'Signed out. That session has ended.' : undefined;
    sendPage(res, MemberSessionsPage({ viewer: viewerOf(s), sessions, notice }));
  });

  router.post('/members/sessions/:sessionId/end', async (req, res) => {
    const s = memberOf(res);
    const id = req.params.sessionId ?? '';
    if (!SESSION_ID.test(id)) throw notFound();
    let endedCurrent: boolean;
    try {
      ({ ended_current: endedCurrent } = await deps.clients.sso(
        'endBrandSsoSession',
        { brand_id: s.brand.id, session_id: id, session_token: s.token },
        { assertion: s.assertion },
      ));
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused || refused.httpStatus !== 403) throw err;
      res.setHeader('X-Console-Error', refused.code);
      sendPage(res, MemberSessionsNotAllowedPage({ viewer: viewerOf(s) }), 403);
      return;
    }
    if (endedCurrent) {
      clearSessionCookie(res);
      res.redirect(303, '/sign-in');
      return;
    }
    res.redirect(303, `/brands/${s.brand.id}/members/sessions?done=ended`);
  });
}
