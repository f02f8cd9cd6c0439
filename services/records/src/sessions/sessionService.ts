import { insertActivity } from '@brand/shared/activity';
import { signMemberAssertion } from '@brand/shared/console';
import { withTransaction, type PoolClient } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { markMemberUsed, selectMemberships, type Membership } from '../access/memberRepo';
import { ineligibleReason, isEligible } from './eligibility';
import { endUnusedSignInLinksOf } from './linkRepo';
import { methodRefusal } from '../signInPolicy/policy';
import type { SessionDeps } from './sessionDeps';
import {
  endSession,
  endSessionsWithin,
  markSessionAt,
  touchLiveSession,
  type SessionRow,
  type TouchedSession,
} from './sessionRepo';
import { recordSignedIn, recordSignInRefused } from './signInActivity';
import { provesAddress, reachOf } from './sessionScope';
import { deleteSignInRequestsOf, lockSignInClaims } from './signInRequestRepo';
import { hashToken, TOKEN_PATTERN } from './tokens';

const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;

const invalidSession = (): AppError =>
  new AppError('invalid_session', 'The session has ended or expired; sign in again.');

export interface ResolvedSession {
  session: TouchedSession;
  brands: Membership[];
  /** Set when a brand was asked for. */
  acting?: Membership & { assertion: string; assertionExpiresAt: Date };
}

/** The live session a token names (its idle expiry slid), or invalid_session. */
export async function liveSession(deps: SessionDeps, token: string): Promise<TouchedSession> {
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
  await assertSignInPolicy(deps, found, session);
  await noteActingAt(deps, found, session);
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
 * brand's single sign-on, that brand's alone (the provider vouched for the address there only);
 * never one of a brand the address was removed from while the session lived.
 */
export async function membershipsOpenedBy(
  deps: Pick<SessionDeps, 'pool'>,
  session: SessionRow,
): Promise<Membership[]> {
  // A brand the address was removed from while the session lived stays shut to it, even once
  // the address is a member there again: a removed member invited back signs in again.
  const all = (await selectMemberships(deps.pool, session.email)).filter(
    (m) => !session.left_brand_ids.includes(m.brand.id),
  );
  return session.sso_brand_id === null
    ? all
    : all.filter((m) => m.brand.id === session.sso_brand_id);
}

/**
 * Refuses a session whose way of signing in the brand does not accept (its sign-in policy). The
 * first refusal of a session at a brand is recorded there (member.sign_in_refused), once: the
 * person tried to open this brand, and only this brand hears of it. Every RPC that resolves a
 * session token for a brand itself, rather than through resolveSession, calls this too.
 */
export async function assertSignInPolicy(
  deps: SessionDeps,
  { brand, member }: Membership,
  session: SessionRow,
): Promise<void> {
  const refused = methodRefusal(brand, {
    method: session.sign_in_method,
    ssoBrandId: session.sso_brand_id,
  });
  if (refused === undefined) return;
  if (!session.refused_brand_ids.includes(brand.id)) {
    await withTransaction(deps.pool, async (db) => {
      if (!(await markSessionAt(db, session.id, brand.id, 'refused'))) return;
      await recordSignInRefused(db, {
        brandId: brand.id,
        memberId: member.id,
        email: member.email,
        method: session.sign_in_method,
        reason: refused,
      });
    });
  }
  throw new AppError('sign_in_method_required', refused);
}

/**
 * A session acting at a brand (issue 59 part 3: a sign-in is recorded where it happens). The
 * first time, member.signed_in goes into this brand's activity, with the request's address and
 * user agent, and nowhere else; the member's "last used" is set then and, after that, at most
 * once a minute (when the session's last_seen_at is written).
 */
async function noteActingAt(
  deps: SessionDeps,
  { member }: Membership,
  session: TouchedSession,
): Promise<void> {
  if (session.acted_brand_ids.includes(member.brand_id)) {
    if (session.touched) await markMemberUsed(deps.pool, member.id, session.sign_in_method);
    return;
  }
  await withTransaction(deps.pool, async (db) => {
    if (!(await markSessionAt(db, session.id, member.brand_id, 'acted'))) return;
    await recordSignedIn(db, member, session.sign_in_method);
    await markMemberUsed(db, member.id, session.sign_in_method);
  });
}

/**
 * member.signed_out in the activity of each brand the ended sessions acted at, where the address
 * is still a member: a brand hears of a sign-out only if the session ever opened it.
 */
export async function recordSignOut(
  db: PoolClient,
  ended: { email: string; brandIds: readonly string[] },
): Promise<void> {
  if (ended.brandIds.length === 0) return;
  const memberships = await selectMemberships(db, ended.email);
  for (const { member } of memberships) {
    if (!ended.brandIds.includes(member.brand_id)) continue;
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
      await recordSignOut(db, { email: session.email, brandIds: ended.brandIds });
      return ended.ended;
    }
    await lockSignInClaims(db);
    const ended = await endSessionsWithin(db, reach);
    await endUnusedSignInLinksOf(db, session.email);
    await deleteSignInRequestsOf(db, session.email);
    await recordSignOut(db, { email: session.email, brandIds: ended.brandIds });
    return ended.ended;
  });
}
