import { AppError } from '@brand/shared/errors';
import type { SessionReach, SessionRow } from './sessionRepo';

/*
 * Who a console session speaks for (issue 42; docs/console.md "Who a session speaks for").
 *
 * An address (an email) is one person across every brand they belong to. Only what the address
 * alone controls proves it: its mailbox (an emailed link) or a passkey registered to it. A brand's
 * single sign-on proves less: that the brand's provider, configured by that brand's own owner,
 * vouches for the address at that brand. So a session it opened acts for the member of that one
 * brand and never for the address: not on its passkeys, not on its sessions elsewhere, not on
 * anything beyond the brand. Every function that takes a session token asks here.
 */

/**
 * The sessions a session may see and end: every session of its address when it proves the
 * address, else only those its brand's single sign-on opened for the address.
 */
export function reachOf(session: SessionRow): SessionReach {
  return { email: session.email, ssoBrandId: session.sso_brand_id };
}

/** True when the session proves the address itself: opened by an emailed link or a passkey. */
export function provesAddress(session: SessionRow): boolean {
  return session.sso_brand_id === null && session.sign_in_method !== 'sso';
}

/**
 * Refuses an act on the address (its passkeys, its sessions beyond one brand) from a session that
 * does not prove it: PERMISSION_DENIED address_proof_required, naming what was refused and how to
 * do it instead. `act` completes "… needs", e.g. "Adding a passkey".
 */
export function assertAddressProof(session: SessionRow, act: string): void {
  if (provesAddress(session)) return;
  throw new AppError(
    'address_proof_required',
    `${act} needs a session opened by an emailed link or a passkey of your address: you signed in with a brand’s single sign-on, which speaks for that brand only.`,
  );
}
