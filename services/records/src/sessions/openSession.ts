import type { RedeemSignInLinkResponse } from '@brand/proto/access/v1/sessions';
import type { PoolClient } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';
import { markMemberUsed, type Membership } from '../access/memberRepo';
import { toBrand, toMember } from '../access/toProto';
import type { SessionDeps } from './sessionDeps';
import { methodRefusal } from '../signInPolicy/policy';
import { recordSignedIn, recordSignInRefused } from './signInActivity';
import type { SignInClient, SignInMethod } from './signInClient';
import { deleteStaleSessions, insertSession, markSessionAt } from './sessionRepo';
import { hashToken, newSecretToken } from './tokens';

/** A session just opened: the raw token goes into the cookie and nowhere else. */
export interface OpenedSession {
  sessionId: string;
  sessionToken: string;
  csrfSecret: string;
  email: string;
  brands: Membership[];
  expiresAt: Date;
}

/**
 * Opens a session for an address whose eligible brands are known, inside the caller's
 * transaction (whatever proved the address, a link, a passkey or a single sign-on state, is
 * spent in the same one): a random token and CSRF secret, stored as a hash and as is.
 *
 * Where the sign-in is recorded (issue 59 part 3): a session opened by a brand's single sign-on
 * happened at that brand, so member.signed_in goes into its activity now (or, if the brand's
 * policy refuses it, member.sign_in_refused). An emailed link or a passkey proves the address,
 * not a brand: nothing is written at any brand until the session first opens one
 * (resolveSession), so no brand learns of a sign-in made to open another.
 */
export async function openSession(
  db: PoolClient,
  deps: SessionDeps,
  opening: {
    email: string;
    brands: Membership[];
    method: SignInMethod;
    client: SignInClient;
    /** Single sign-on: the one brand (brands is that membership alone). */
    ssoBrandId?: string;
  },
): Promise<OpenedSession> {
  const sessionToken = newSecretToken();
  const csrfSecret = newSecretToken();
  const session = await insertSession(db, {
    id: newId('consoleSession'),
    tokenHash: hashToken(sessionToken),
    email: opening.email,
    csrfSecret,
    maxAgeMs: deps.maxAgeMs,
    method: opening.method,
    client: opening.client,
    ssoBrandId: opening.ssoBrandId,
  });
  const ssoBrand = opening.brands.find((m) => m.brand.id === opening.ssoBrandId);
  if (opening.ssoBrandId !== undefined && ssoBrand) {
    const { member, brand } = ssoBrand;
    const refused = methodRefusal(brand, { method: opening.method, ssoBrandId: brand.id });
    if (refused === undefined) {
      await recordSignedIn(db, member, opening.method);
      await markMemberUsed(db, member.id, opening.method);
    } else {
      await markSessionAt(db, session.id, brand.id, 'refused');
      await recordSignInRefused(db, {
        brandId: member.brand_id,
        memberId: member.id,
        email: member.email,
        method: opening.method,
        reason: refused,
      });
    }
  }
  return {
    sessionId: session.id,
    sessionToken,
    csrfSecret,
    email: opening.email,
    brands: opening.brands,
    expiresAt: session.expires_at,
  };
}

/** After a session opened: logs it and forgets sessions that can never be used again. */
export function afterSessionOpened(deps: SessionDeps, opened: OpenedSession): void {
  deps.log.info({ session_id: opened.sessionId }, 'console session opened');
  deleteStaleSessions(deps.pool).catch((err: unknown) =>
    deps.log.warn({ err }, 'could not delete stale console sessions'),
  );
}

/**
 * A session just opened as every sign-in RPC answers it (a link, a passkey, single sign-on):
 * the raw token and CSRF secret for the console's cookie, the address and its brands.
 */
export function toOpenedResponse(opened: OpenedSession): RedeemSignInLinkResponse {
  return {
    session_token: opened.sessionToken,
    csrf_secret: opened.csrfSecret,
    email: opened.email,
    brands: opened.brands.map((m) => ({ brand: toBrand(m.brand), member: toMember(m.member) })),
    expires_at: opened.expiresAt.toISOString(),
  };
}
