import { insertActivity } from '@brand/shared/activity';
import type { RedeemSignInLinkResponse } from '@brand/proto/access/v1/sessions';
import type { PoolClient } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';
import type { Membership } from '../access/memberRepo';
import { toBrand, toMember } from '../access/toProto';
import type { SessionDeps } from './sessionDeps';
import { methodRefusal } from './methodRefusal';
import { METHOD_WORDS, recordSignInRefused } from './signInActivity';
import type { SignInClient, SignInMethod } from './signInClient';
import { deleteStaleSessions, insertSession } from './sessionRepo';
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
 * spent in the same one):
 * a random token and CSRF secret, stored as a hash and as is, and member.signed_in, naming the
 * method, in the activity of each of those brands that accepts the method; a brand whose
 * sign-in policy refuses it records member.sign_in_refused with the reason instead (the
 * session never opens that brand: resolveSession refuses it by the same rule).
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
  for (const { member, brand } of opening.brands) {
    const refused = methodRefusal(brand, {
      method: opening.method,
      ssoBrandId: opening.ssoBrandId ?? null,
    });
    if (refused !== undefined) {
      await recordSignInRefused(db, {
        brandId: member.brand_id,
        memberId: member.id,
        email: member.email,
        method: opening.method,
        reason: refused,
      });
      continue;
    }
    await insertActivity(db, {
      brandId: member.brand_id,
      action: 'member.signed_in',
      actorMemberId: member.id,
      actorEmail: member.email,
      subjectId: member.id,
      summary: `${member.email} signed in with ${METHOD_WORDS[opening.method]}`,
    });
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
