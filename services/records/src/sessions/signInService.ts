import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { email } from '../access/inputs';
import { selectMemberships, type Membership } from '../access/memberRepo';
import { isEligible } from './eligibility';
import { deleteStaleSignInLinks, insertSignInLink, spendSignInLink } from './linkRepo';
import type { SessionDeps } from './sessionDeps';
import { deleteStaleSessions, insertSession } from './sessionRepo';
import { hashToken, newSecretToken, TOKEN_PATTERN } from './tokens';

const RequestInput = z.object({
  email,
  clientKey: z.string().min(1, 'is required').max(128),
});

/** The eligible brands of an address: where it may use the Developers area. */
async function eligibleMemberships(db: Pool | PoolClient, email: string): Promise<Membership[]> {
  return (await selectMemberships(db, email)).filter((m) => isEligible(m.brand));
}

/**
 * Mints a one-time sign-in link token for an address, after the rate limit (which counts
 * every request, member or not). The token comes back only when the address is a member of
 * an eligible brand; the console answers the person the same way either way.
 */
export async function requestSignInLink(
  deps: SessionDeps,
  input: { email: string; clientKey: string },
): Promise<{ token: string; expiresAt: string }> {
  const v = parseOrThrow(RequestInput, input);
  await deps.rateLimit.take(v.email, v.clientKey);
  if ((await eligibleMemberships(deps.pool, v.email)).length === 0) {
    deps.log.info('sign-in link requested for an address with no eligible brand');
    return { token: '', expiresAt: '' };
  }
  const token = newSecretToken();
  const { expires_at } = await insertSignInLink(deps.pool, {
    tokenHash: hashToken(token),
    email: v.email,
    ttlMs: deps.linkTtlMs,
  });
  deleteStaleSignInLinks(deps.pool).catch((err: unknown) =>
    deps.log.warn({ err }, 'could not delete stale sign-in links'),
  );
  return { token, expiresAt: expires_at };
}

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
  input: { token: string },
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
