import { insertActivity } from '@brand/shared/activity';
import { roleAllows } from '@brand/shared/console';
import { withTransaction } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { lockBrandMembers, selectCurrentMember } from '../access/memberRepo';
import { ineligibleReason, isEligible } from '../sessions/eligibility';
import type { SessionDeps } from '../sessions/sessionDeps';
import { assertSignInPolicy, liveSession, membershipsOpenedBy } from '../sessions/sessionService';
import { selectSsoConnection } from '../sso/ssoConnectionRepo';
import { POLICY_SUMMARIES, SIGN_IN_POLICIES } from './policy';

/**
 * An owner requires a passkey (or SSO), or SSO alone, for the brand, or lifts that. Records
 * checks the member's standing and role now, from the database; another brand is not_found.
 * Only a session opened by a passkey or SSO may change it: the owner then keeps access, and
 * someone who holds only the owner's mailbox cannot lift it. Requiring SSO also needs the
 * brand's connection enabled and a session opened by it, so the owner proves the way in works.
 */
export async function setBrandSignInPolicy(
  deps: SessionDeps,
  input: { sessionToken: string; brandId: string; policy: string },
): Promise<void> {
  const session = await liveSession(deps, input.sessionToken);
  const policy = SIGN_IN_POLICIES.find((p) => p === input.policy);
  if (!policy) {
    throw new AppError('validation_failed', 'policy must be "any", "passkey_or_sso" or "sso".');
  }
  const found = (await membershipsOpenedBy(deps, session)).find(
    (m) => m.brand.id === input.brandId,
  );
  if (!found) throw new AppError('not_found', `No brand ${input.brandId}.`);
  // The brand's standing first, as resolving the session for it does: a brand below Plus or
  // unverified has no console, so a direct call must not change its policy either.
  if (!isEligible(found.brand)) {
    throw new AppError('brand_not_eligible', ineligibleReason(found.brand));
  }
  // Then the brand's current policy, as resolving the session does: a session the brand
  // refuses (a passkey where it requires single sign-on) must not lift the requirement that
  // refuses it. Refused through the same path, so the attempt is recorded at the brand once per
  // session, like any other act of a refused session there, and only this brand hears of it; a
  // link session at such a brand gets the brand's reason, the true one, over the link check's.
  await assertSignInPolicy(deps, found, session);
  if (!roleAllows(found.member.role, 'members.sign_in_policy')) throw notAllowed(found.member.role);
  if (session.sign_in_method === 'link') {
    throw new AppError(
      'passkey_session_required',
      'Sign in with a passkey to change how members sign in: a session opened by an emailed link cannot.',
    );
  }
  if (policy === 'sso') {
    const connection = await selectSsoConnection(deps.pool, found.brand.id);
    if (!connection?.enabled) {
      throw new AppError(
        'precondition_failed',
        'Connect and enable the brand’s identity provider (Single sign-on) before requiring it.',
      );
    }
    if (session.sso_brand_id !== found.brand.id) {
      throw new AppError(
        'passkey_session_required',
        'Sign in with single sign-on to require it: you then know it lets you in.',
      );
    }
    if (connection.provider_recent) {
      // Issue 59 part 4: a provider set today may be someone else's; every owner was mailed
      // when it was set, and has this day to notice before links and passkeys stop opening.
      const from = new Date(Date.parse(connection.provider_set_at) + 24 * 60 * 60_000);
      throw new AppError(
        'sso_provider_too_new',
        `The identity provider was set less than a day ago (${connection.provider_set_at}), and every owner was mailed. Single sign-on can be required from ${from.toISOString()}; until then members keep their other ways in.`,
      );
    }
  }
  if (found.brand.sign_in_policy === policy) return;
  await withTransaction(deps.pool, async (db) => {
    // The owner's standing again under the brand's row (member changes lock it): a change queued
    // behind their demotion or removal went ahead on authority they no longer had (a review,
    // 2026-12-01).
    await lockBrandMembers(db, found.brand.id);
    const now = await selectCurrentMember(db, found.member.id);
    if (!now) throw new AppError('not_found', `No brand ${input.brandId}.`);
    if (!roleAllows(now.role, 'members.sign_in_policy')) throw notAllowed(now.role);
    await db.query(`update brands set sign_in_policy = $2 where id = $1`, [found.brand.id, policy]);
    await insertActivity(db, {
      brandId: found.brand.id,
      action: 'brand.sign_in_policy_changed',
      actorMemberId: found.member.id,
      actorEmail: found.member.email,
      subjectId: found.brand.id,
      summary: POLICY_SUMMARIES[policy],
    });
  });
}

const notAllowed = (role: string) =>
  new AppError(
    'insufficient_permission',
    `A brand ${role} cannot do this (members.sign_in_policy); ask a brand owner.`,
  );
