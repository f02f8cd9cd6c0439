import { withTransaction } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { eligibleMemberships } from './eligibility';
import { selectSignInLinkAddress, spendSignInLink } from './linkRepo';
import { afterSessionOpened, openSession, type OpenedSession } from './openSession';
import type { SessionDeps } from './sessionDeps';
import type { SignInClient } from './signInClient';
import { hashToken, TOKEN_PATTERN } from './tokens';

const invalidLink = (): AppError =>
  new AppError(
    'invalid_sign_in_link',
    'This sign-in link is not valid: it was already used, has expired, or was mistyped. Ask for a new one.',
  );

/**
 * The address a link signs in, for the page the link opens (it names whom its button signs in),
 * or invalid_sign_in_link as redeeming would answer. Spends nothing.
 */
export async function describeSignInLink(deps: SessionDeps, token: string): Promise<string> {
  if (!TOKEN_PATTERN.test(token)) throw invalidLink();
  const address = await selectSignInLinkAddress(deps.pool, hashToken(token));
  if (address === undefined) throw invalidLink();
  return address;
}

/**
 * Spends a link and opens a session. One refusal for every bad link, so the answer tells
 * nothing about which case applied. Writes member.signed_in to the activity of each brand the
 * address may act on.
 */
export async function redeemSignInLink(
  deps: SessionDeps,
  input: { token: string; client: SignInClient },
): Promise<OpenedSession> {
  if (!TOKEN_PATTERN.test(input.token)) throw invalidLink();
  const opened = await withTransaction(deps.pool, async (db) => {
    const address = await spendSignInLink(db, hashToken(input.token));
    if (address === undefined) throw invalidLink();
    const brands = await eligibleMemberships(db, address);
    if (brands.length === 0) throw invalidLink();
    return openSession(db, deps, { email: address, brands, method: 'link', client: input.client });
  });
  afterSessionOpened(deps, opened);
  return opened;
}
