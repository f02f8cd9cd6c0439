import type { Router } from 'express';
import { z } from 'zod';
import type { ConsoleClients } from '../../clients/consoleClients';
import { formRefusal } from '../../http/formRefusal';
import { signInHref } from '../../http/returnPath';
import { notFound, requireSession, signedInOf } from '../../session/memberSession';
import { readSessionToken } from '../../session/sessionCookie';
import { doneNoticeOf } from '../../views/doneNotice';
import { sendPage } from '../../views/render';
import { LINK_TOKEN } from '../signIn/input';
import {
  InvitationAnsweredPage,
  InvitationClosedPage,
  InvitationLinkPage,
  InvitationsPage,
} from './view';

const INVITATION_ID = /^inv_[A-Za-z0-9]{1,64}$/;
const AnswerForm = z.object({ answer: z.enum(['accept', 'decline']) });

const NOTICES: Record<string, string> = {
  declined: 'Invitation declined.',
};

/**
 * Membership by consent (issue 59): the person's own invitations, answered from a session that
 * proves their address (records refuses one opened by a brand's single sign-on), and the page a
 * mailed invitation link opens, whose token proves the address on its own. Records decides
 * everything; a refusal is shown on the page.
 */
export function registerInvitations(router: Router, clients: ConsoleClients): void {
  const signedIn = requireSession(clients, { brand: false });

  router.get('/invitations', signedIn, async (req, res) => {
    const s = signedInOf(res);
    const page = { email: s.email, csrfToken: s.csrfToken, invitations: [] };
    try {
      const { invitations } = await clients.invitations('listOwnInvitations', {
        session_token: s.token,
      });
      const done = doneNoticeOf(NOTICES, req.query.done);
      sendPage(res, InvitationsPage({ ...page, invitations, notice: done }));
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      sendPage(res, InvitationsPage({ ...page, refusal: refused.message }), refused.httpStatus);
    }
  });

  router.post('/invitations/:id/:answer', signedIn, async (req, res) => {
    const id = String(req.params.id);
    const answer = String(req.params.answer);
    if (!INVITATION_ID.test(id) || (answer !== 'accept' && answer !== 'decline')) {
      throw notFound();
    }
    const s = signedInOf(res);
    let brandId = '';
    try {
      const { invitation } = await clients.invitations('answerOwnInvitation', {
        session_token: s.token,
        invitation_id: id,
        accept: answer === 'accept',
      });
      brandId = invitation?.brand_id ?? '';
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      res.setHeader('X-Console-Error', refused.code);
      sendPage(
        res,
        InvitationsPage({
          email: s.email,
          csrfToken: s.csrfToken,
          invitations: [],
          refusal: refused.message,
        }),
        refused.httpStatus,
      );
      return;
    }
    if (answer !== 'accept') {
      res.redirect(303, '/invitations?done=declined');
      return;
    }
    // A session that lived through the address's removal from this brand never opens it again
    // (records), so someone invited back signs in afresh: the sign-in page, then the brand.
    const opens = await sessionOpens(clients, s.token, { email: s.email, brandId });
    res.redirect(303, opens ? `/brands/${brandId}` : signInHref(`/brands/${brandId}`));
  });

  router.get('/invite/:token', async (req, res) => {
    const token = String(req.params.token);
    if (!LINK_TOKEN.test(token)) throw notFound();
    const { invitation } = await clients.invitations('showInvitation', { token });
    if (!invitation) throw notFound();
    sendPage(res, InvitationLinkPage({ token, inv: invitation }));
  });

  router.post('/invite/:token', async (req, res) => {
    const token = String(req.params.token);
    if (!LINK_TOKEN.test(token)) throw notFound();
    const parsed = AnswerForm.safeParse(req.body);
    if (!parsed.success) throw notFound();
    try {
      const { invitation } = await clients.invitations('answerInvitation', {
        token,
        accept: parsed.data.answer === 'accept',
      });
      if (!invitation) throw notFound();
      const signedInHere = await sessionOpens(clients, readSessionToken(req), {
        email: invitation.email,
        brandId: invitation.brand_id,
      });
      sendPage(res, InvitationAnsweredPage({ inv: invitation, signedInHere }));
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      res.setHeader('X-Console-Error', refused.code);
      sendPage(res, InvitationClosedPage({ message: refused.message }), refused.httpStatus);
    }
  });
}

/**
 * Whether this browser is signed in as `email` already, with a session that opens the brand (the
 * page then links the brand). One that lived through the address's removal from the brand does
 * not: the person signs in again.
 */
async function sessionOpens(
  clients: ConsoleClients,
  token: string | undefined,
  want: { email: string; brandId: string },
): Promise<boolean> {
  if (!token) return false;
  try {
    const r = await clients.sessions('resolveConsoleSession', {
      session_token: token,
      brand_id: '',
    });
    return r.email === want.email && r.brands.some((m) => m.brand?.id === want.brandId);
  } catch {
    return false;
  }
}
