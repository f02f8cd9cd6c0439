import { z } from 'zod';
import { withTransaction } from '@brand/shared/db';
import { parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { email } from '../access/inputs';
import { linkServes } from '../signInPolicy/policy';
import { eligibleMemberships } from './eligibility';
import { deleteStaleSignInLinks, endUnusedSignInLinksOf, insertSignInLink } from './linkRepo';
import type { SessionDeps } from './sessionDeps';
import {
  deleteClaimedSignInRequests,
  deleteExpiredSignInRequests,
  deleteSignInRequests,
  insertSignInRequest,
  markSignInRequestsClaimed,
  selectClaimableSignInRequests,
  tryLockSignInClaims,
} from './signInRequestRepo';
import { hashToken, newSecretToken } from './tokens';

/**
 * A request not mailed within an hour is dropped (and logged as an error): mail has been
 * failing all that time, and the person has asked again or given up.
 */
const REQUEST_MAX_AGE_MS = 60 * 60_000;

const RequestInput = z.object({
  email,
  clientKey: z.string().min(1, 'is required').max(128),
});

/**
 * Accepts a request for a sign-in link: the rate limit (per address and client, per client),
 * then the request is stored. Nothing here depends on whether the address is a member, so
 * the answer takes as long for a stranger as for a member; links are minted later, by
 * claimSignInMails, off the answer's path.
 */
export async function requestSignInLink(
  deps: SessionDeps,
  input: { email: string; clientKey: string },
): Promise<void> {
  const v = parseOrThrow(RequestInput, input);
  await deps.rateLimit.take(v.email, v.clientKey);
  await insertSignInRequest(deps.pool, { id: newId('signInRequest'), email: v.email });
}

export interface SignInMail {
  claimId: string;
  email: string;
  /** Empty when every brand of the address requires single sign-on: the mail carries none. */
  token: string;
  expiresAt: string;
  /** The address's brands that admit their own single sign-on alone: the mail points there. */
  ssoOnlyBrands: { id: string; name: string }[];
}

const ClaimInput = z.object({ maxMails: z.number().int().min(1).max(100) });

/**
 * Turns accepted requests into mails to send now, one per address: for a member of an eligible
 * brand a new link (ending the address's earlier unused links), for anyone else nothing (the
 * requests are dropped). When a link serves none of the address's brands (each requires its
 * single sign-on alone: signInPolicy/policy.ts), the mail carries no link, only the way to each brand's single sign-on:
 * the link is still minted, so it ends the earlier ones and spaces mails as a mailed link does,
 * but its token is dropped here and never leaves records, so it opens nothing. An address is claimed only when no link was minted for it within
 * its spacing (`mailSpacingMs`, doubling while its links go unused, up to `mailSpacingMaxMs`), so
 * however many clients ask, one address gets at most one mail per spacing.
 * Claims run one at a time (a transaction lock); a concurrent claim answers no mails.
 */
export async function claimSignInMails(
  deps: SessionDeps,
  input: { maxMails: number },
): Promise<SignInMail[]> {
  const v = parseOrThrow(ClaimInput, input);
  const outcome = await withTransaction(deps.pool, async (db) => {
    const mails: SignInMail[] = [];
    if (!(await tryLockSignInClaims(db))) return { mails, expired: 0 };
    const expired = await deleteExpiredSignInRequests(db, REQUEST_MAX_AGE_MS);
    // Strangers' requests are dropped without a mail, so look at more addresses than mails.
    const claimable = await selectClaimableSignInRequests(db, {
      spacingMs: deps.mailSpacingMs,
      maxSpacingMs: deps.mailSpacingMaxMs,
      limit: v.maxMails * 4,
    });
    for (const { email: address, ids } of claimable) {
      if (mails.length === v.maxMails) break;
      const brands = (await eligibleMemberships(db, address)).map((m) => m.brand);
      if (brands.length === 0) {
        await deleteSignInRequests(db, ids);
        continue;
      }
      await endUnusedSignInLinksOf(db, address);
      const token = newSecretToken();
      const { expires_at } = await insertSignInLink(db, {
        tokenHash: hashToken(token),
        email: address,
        ttlMs: deps.linkTtlMs,
      });
      const claimId = newId('signInClaim');
      await markSignInRequestsClaimed(db, { ids, claimId, leaseMs: deps.mailLeaseMs });
      const linkServesOne = brands.some(linkServes);
      mails.push({
        claimId,
        email: address,
        token: linkServesOne ? token : '',
        expiresAt: linkServesOne ? expires_at : '',
        ssoOnlyBrands: brands
          .filter((b) => !linkServes(b))
          .map((b) => ({ id: b.id, name: b.name })),
      });
    }
    return { mails, expired };
  });
  if (outcome.expired > 0) {
    deps.log.error(
      { requests: outcome.expired },
      'sign-in requests dropped unmailed after an hour: is the console failing to send mail?',
    );
  }
  if (outcome.mails.length > 0) {
    deps.log.info({ mails: outcome.mails.length }, 'sign-in links minted for mailing');
    deleteStaleSignInLinks(deps.pool).catch((err: unknown) =>
      deps.log.warn({ err }, 'could not delete stale sign-in links'),
    );
  }
  return outcome.mails;
}

const CompleteInput = z.object({
  claimIds: z.array(z.string().regex(/^sic_[A-Za-z0-9]{1,64}$/, 'must be a claim id')).max(100),
});

/** Forgets the requests of claims whose mails were sent; unknown ids are ignored. */
export async function completeSignInMails(
  deps: SessionDeps,
  input: { claimIds: string[] },
): Promise<void> {
  const v = parseOrThrow(CompleteInput, input);
  if (v.claimIds.length > 0) await deleteClaimedSignInRequests(deps.pool, v.claimIds);
}
