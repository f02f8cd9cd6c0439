import { insertActivity } from '@brand/shared/activity';
import type { Pool, PoolClient } from '@brand/shared/db';
import type { SignInMethod } from './signInClient';

/** How each way in reads in the activity ("signed in with an emailed link"). */
const METHOD_WORDS: Record<SignInMethod, string> = {
  link: 'an emailed link',
  passkey: 'a passkey',
  sso: 'single sign-on',
};

/**
 * member.sign_in_refused: someone proved an address (or tried to) and the brand did not let
 * them in, with the method and the reason (issue 42: refusals were recorded as sign-ins, or
 * not at all). `memberId` is empty when the address is not a member of the brand.
 */
export async function recordSignInRefused(
  db: Pool | PoolClient,
  r: { brandId: string; memberId: string; email: string; method: SignInMethod; reason: string },
): Promise<void> {
  const who = r.email === '' ? 'Someone' : r.email;
  await insertActivity(db, {
    brandId: r.brandId,
    action: 'member.sign_in_refused',
    actorMemberId: r.memberId,
    actorEmail: r.email === '' ? 'unknown' : r.email,
    subjectId: r.memberId,
    summary: `${who} tried to sign in with ${METHOD_WORDS[r.method]}; refused: ${r.reason}`,
  });
}

/**
 * member.signed_in at one brand: a session of the member opened it for the first time (a brand's
 * single sign-on: at once). The row carries the request's address and user agent.
 */
export async function recordSignedIn(
  db: Pool | PoolClient,
  member: { id: string; brand_id: string; email: string },
  method: SignInMethod,
): Promise<void> {
  await insertActivity(db, {
    brandId: member.brand_id,
    action: 'member.signed_in',
    actorMemberId: member.id,
    actorEmail: member.email,
    subjectId: member.id,
    summary: `${member.email} signed in with ${METHOD_WORDS[method]}`,
  });
}
