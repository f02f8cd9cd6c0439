import { insertActivity } from '@brand/shared/activity';
import { signMemberAssertion } from '@brand/shared/console';
import { withTransaction, type PoolClient } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import type { BrandRow } from '../access/brandRepo';
import { selectMemberships, type Membership } from '../access/memberRepo';
import { ineligibleReason, isEligible } from './eligibility';
import { endUnusedSignInLinksOf } from './linkRepo';
import { methodRefusal } from './methodRefusal';
import type { SessionDeps } from './sessionDeps';
import {
  endSession,
  endSessionsWithin,
  touchLiveSession,
  type SessionReach,
  type SessionRow,
} from './sessionRepo';
import { provesAddress, reachOf } from './sessionScope';
import { deleteSignInRequestsOf, lockSignInClaims } from './signInRequestRepo';
import { hashToken, TOKEN_PATTERN } from './tokens';

const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;

const invalidSession = (): AppError =>
  new AppError('invalid_session', 'The session has ended or expired; sign in again.');

export interface ResolvedSession {
  session: SessionRow;
  brands: Membership[];
  /** Set when a brand was asked for. */
  acting?: Membership & { assertion: string; assertionExpiresAt: Date };
}

/** The live session a token names (its idle expiry slid), or invalid_session. */
export async function liveSession(deps: SessionDeps, token: string): Promise<SessionRow> {
  if (!TOKEN_PATTERN.test(token)) throw invalidSession();
  const session = await touchLiveSession(deps.pool, hashToken(token), deps.idleMs);
  if (!session) throw invalidSession();
  return session;
}

/**
 * Checks a session and slides its idle expiry; with a brand, checks the address's standing
 * on it now (a member removed, or a brand below Plus or unverified, is refused at once) and
 * signs a member assertion for the calls the console makes on the member's behalf. Another
 * brand's id is not_found, like an unknown one.
 */
export async function resolveSession(
  deps: SessionDeps,
  input: { sessionToken: string; brandId: string },
): Promise<ResolvedSession> {
  const session = await liveSession(deps, input.sessionToken);
  const memberships = await membershipsOpenedBy(deps, session);
  const brands = memberships.filter((m) => isEligible(m.brand));
  if (input.brandId === '') return { session, brands };

  const found = BRAND_ID.test(input.brandId)
    ? memberships.find((m) => m.brand.id === input.brandId)
    : undefined;
  if (!found) throw new AppError('not_found', `No brand ${input.brandId}.`);
  if (!isEligible(found.brand)) {
    throw new AppError('brand_not_eligible', ineligibleReason(found.brand));
  }
  assertSignInPolicy(found.brand, session);
  if (!deps.assertionKey) {
    throw new AppError('service_unavailable', 'The console is not configured on this service.');
  }
  const { assertion, expiresAt } = signMemberAssertion(deps.assertionKey, {
    brand_id: found.brand.id,
    member_id: found.member.id,
    email: found.member.email,
    role: found.member.role,
    tier: found.brand.tier,
  });
  return { session, brands, acting: { ...found, assertion, assertionExpiresAt: expiresAt } };
}

/**
 * The memberships a session opens: every one of its address, or, for a session opened by a
 * brand's single sign-on, that brand's alone (the provider vouched for the address there only).
 */
export async function membershipsOpenedBy(
  deps: Pick<SessionDeps, 'pool'>,
  session: SessionRow,
): Promise<Membership[]> {
  const all = await selectMemberships(deps.pool, session.email);
  return session.sso_brand_id === null
    ? all
    : all.filter((m) => m.brand.id === session.sso_brand_id);
}

/** Refuses a session whose way of signing in the brand does not accept (its sign-in policy). */
function assertSignInPolicy(brand: BrandRow, session: SessionRow): void {
  const refused = methodRefusal(brand, {
    method: session.sign_in_method,
    ssoBrandId: session.sso_brand_id,
  });
  if (refused !== undefined) throw new AppError('sign_in_method_required', refused);
}

/**
 * member.signed_out in the activity of every brand within the reach: each brand the address is
 * a member of, or, for a brand's single sign-on sessions, that brand alone (another brand's
 * activity never hears of what a brand's provider did).
 */
export async function recordSignOut(db: PoolClient, reach: SessionReach): Promise<void> {
  const memberships = await selectMemberships(db, reach.email);
  for (const { member } of memberships) {
    if (reach.ssoBrandId !== null && member.brand_id !== reach.ssoBrandId) continue;
    await insertActivity(db, {
      brandId: member.brand_id,
      action: 'member.signed_out',
      actorMemberId: member.id,
      actorEmail: member.email,
      subjectId: member.id,
      summary: `${member.email} signed out`,
    });
  }
}

/** Ends one session; an unknown or ended one is fine (signing out twice is not an error). */
export async function signOut(deps: SessionDeps, input: { sessionToken: string }): Promise<void> {
  if (!TOKEN_PATTERN.test(input.sessionToken)) return;
  await withTransaction(deps.pool, async (db) => {
    const ended = await endSession(db, hashToken(input.sessionToken));
    if (ended !== undefined) await recordSignOut(db, ended);
  });
}

/**
 * Ends every session of the live session's address, and every way in it has not used yet: its
 * unused sign-in links and the requests not mailed yet. Under the claims lock: a link being
 * minted at that moment is committed first and ended here. From a session opened by a brand's
 * single sign-on, which speaks for that brand only, "everywhere" is that brand's single sign-on
 * sessions of the address: the address's other sessions and its links are not its to end.
 * Returns how many sessions ended.
 */
export async function signOutEverywhere(
  deps: SessionDeps,
  input: { sessionToken: string },
): Promise<number> {
  const session = await liveSession(deps, input.sessionToken);
  const reach = reachOf(session);
  return withTransaction(deps.pool, async (db) => {
    if (!provesAddress(session)) {
      const ended = await endSessionsWithin(db, reach);
      await recordSignOut(db, reach);
      return ended;
    }
    await lockSignInClaims(db);
    const ended = await endSessionsWithin(db, reach);
    await endUnusedSignInLinksOf(db, session.email);
    await deleteSignInRequestsOf(db, session.email);
    await recordSignOut(db, reach);
    return ended;
  });
}
