import type { Router } from 'express';
import type { ConsoleClients } from '../../clients/consoleClients';
import { requireSession, signedInOf } from '../../session/memberSession';
import { clearSessionCookie } from '../../session/sessionCookie';
import { sendPage } from '../../views/render';
import { BrandsPage } from './view';

const SIGNED_OUT = '/sign-in?signed_out=1';

/** The brand picker, sign-out and sign-out everywhere: pages of a session, not of a brand. */
export function registerBrands(router: Router, clients: ConsoleClients): void {
  const signedIn = requireSession(clients, { brand: false });
  // Signing out where the session already ended (another tab signed out, it expired) is done:
  // the person sees that they are signed out, not a refusal.
  const signingOut = requireSession(clients, {
    brand: false,
    withoutSession: (res) => {
      clearSessionCookie(res);
      res.redirect(303, SIGNED_OUT);
    },
  });

  // Signed in, a member of one brand goes straight to its overview; of several, to the choice.
  router.get('/', signedIn, (_req, res) => {
    const { brands } = signedInOf(res);
    const only = brands.length === 1 ? brands[0]?.brand?.id : undefined;
    res.redirect(303, only ? `/brands/${only}` : '/brands');
  });

  router.get('/brands', signedIn, async (_req, res) => {
    const s = signedInOf(res);
    // Invitations waiting for the address, which only a session proving it may see (issue 59).
    const invited =
      s.ssoBrand === undefined
        ? (await clients.invitations('listOwnInvitations', { session_token: s.token })).invitations
        : [];
    sendPage(
      res,
      BrandsPage({
        email: s.email,
        csrfToken: s.csrfToken,
        brands: s.brands,
        ssoBrandName: s.ssoBrand?.name,
        invitedBy: invited.map((i) => i.brand_name),
      }),
    );
  });

  router.post('/sign-out', signingOut, async (_req, res) => {
    await clients.sessions('signOut', { session_token: signedInOf(res).token });
    clearSessionCookie(res);
    res.redirect(303, SIGNED_OUT);
  });

  router.post('/sign-out-everywhere', signedIn, async (_req, res) => {
    await clients.sessions('signOutEverywhere', { session_token: signedInOf(res).token });
    clearSessionCookie(res);
    res.redirect(303, SIGNED_OUT);
  });
}
