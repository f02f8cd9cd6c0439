import { z } from 'zod';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import type { SessionDeps } from '../sessions/sessionDeps';
import { assertAddressProof } from '../sessions/sessionScope';
import { liveSession } from '../sessions/sessionService';
import { selectInvitation, selectPendingInvitationsOf, type InvitationRow } from './invitationRepo';
import { settleInvitation } from './invitationService';

/*
 * A person's own invitations, from a session of theirs. Only a session that proves the address
 * (an emailed link or a passkey) may see or answer them: a session opened by a brand's single
 * sign-on speaks for that brand alone (sessionScope.ts), and joining another brand is an act of
 * the address.
 */

const invitationId = z
  .string()
  .regex(/^inv_[A-Za-z0-9]{1,64}$/, 'must be an invitation id (inv_...)');

/** The pending invitations of the session's address, newest first. */
export async function listOwnInvitations(
  deps: SessionDeps,
  input: { sessionToken: string },
): Promise<InvitationRow[]> {
  const session = await liveSession(deps, input.sessionToken);
  assertAddressProof(session, 'Seeing your invitations');
  return selectPendingInvitationsOf(deps.pool, session.email);
}

/** Accepts or declines one of them; another address's invitation is not_found. */
export async function answerOwnInvitation(
  deps: SessionDeps,
  input: { sessionToken: string; invitationId: string; accept: boolean },
): Promise<InvitationRow> {
  const session = await liveSession(deps, input.sessionToken);
  assertAddressProof(session, 'Answering an invitation');
  const v = parseOrThrow(z.object({ invitationId }), input);
  const found = await selectInvitation(deps.pool, v.invitationId);
  if (!found || found.email !== session.email) {
    throw new AppError('not_found', `No invitation ${v.invitationId}.`);
  }
  return settleInvitation(deps.pool, found, input.accept);
}
