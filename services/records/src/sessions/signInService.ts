import { insertActivity } from '@brand/shared/activity';
import { withTransaction } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import type { Membership } from '../access/memberRepo';
import { eligibleMemberships } from './eligibility';
import { spendSignInLink } from './linkRepo';
import type { SessionDeps } from './sessionDeps';
import type { SignInClient } from './signInClient';
import { deleteStaleSessions, insertSession } from './sessionRepo';
import { hashToken, newSecretToken, TOKEN_PATTERN } from './tokens';

const invalidLink = (): AppError =>
  new AppError(
    'invalid_sign_in_link',
    'This sign-in link is not valid: it was already used, has expired, or was mistyped. Ask for a new one.',
  );

/**
 * Spends a link and opens a session (random token and CSRF secret, stored as a hash and as
 * is). One refusal for every bad link, so the answer tells nothing about which case applied.
 * Writes member.signed_in to the activity of each brand the address may act on.
 */
export async function redeemSignInLink(
  deps: SessionDeps,
  input: { token: string; client: SignInClient },
): Promise<{
  sessionToken: string;
  csrfSecret: string;
  email: string;
  brands: Membership[];
  expiresAt: Date;
}> {
  if (!TOKEN_PATTERN.test(input.token)) throw invalidLink();
  const sessionToken = newSecretToken();
  const csrfSecret = newSecretToken();
  const opened = await withTransaction(deps.pool, async (db) => {
    const address = await spendSignInLink(db, hashToken(input.token));
    if (address === undefined) throw invalidLink();
    const brands = await eligibleMemberships(db, address);
    if (brands.length === 0) throw invalidLink();
    const session = await insertSession(db, {
      id: newId('consoleSession'),
      tokenHash: hashToken(sessionToken),
      email: address,
      csrfSecret,
      maxAgeMs: deps.maxAgeMs,
      method: 'link',
      client: input.client,
    });
    for (const { member } of brands) {
      await insertActivity(db, {
        brandId: member.brand_id,
        action: 'member.signed_in',
        actorMemberId: member.id,
        actorEmail: member.email,
        subjectId: member.id,
        summary: `${member.email} signed in`,
      });
    }
    return { email: address, brands, session };
  });
  deps.log.info({ session_id: opened.session.id }, 'console session opened');
  deleteStaleSessions(deps.pool).catch((err: unknown) =>
    deps.log.warn({ err }, 'could not delete stale console sessions'),
  );
  return {
    sessionToken,
    csrfSecret,
    email: opened.email,
    brands: opened.brands,
    expiresAt: opened.session.expires_at,
  };
}
