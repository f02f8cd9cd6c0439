import { insertActivity } from '@brand/shared/activity';
import { roleAllows } from '@brand/shared/console';
import { withTransaction } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import type { SignInPolicy } from '../access/brandRepo';
import { selectMemberships } from '../access/memberRepo';
import type { SessionDeps } from '../sessions/sessionDeps';
import { liveSession } from '../sessions/sessionService';

const POLICIES: readonly SignInPolicy[] = ['any', 'passkey_or_sso'];

/**
 * An owner requires a passkey (or SSO) for the brand, or lifts that. Records checks the
 * member's standing and role now, from the database; another brand is not_found. Only a
 * session opened by a passkey may change it: the owner then keeps access, and someone who
 * holds only the owner's mailbox cannot lift it.
 */
export async function setBrandSignInPolicy(
  deps: SessionDeps,
  input: { sessionToken: string; brandId: string; policy: string },
): Promise<void> {
  const session = await liveSession(deps, input.sessionToken);
  const policy = POLICIES.find((p) => p === input.policy);
  if (!policy) {
    throw new AppError('validation_failed', 'policy must be "any" or "passkey_or_sso".');
  }
  const found = (await selectMemberships(deps.pool, session.email)).find(
    (m) => m.brand.id === input.brandId,
  );
  if (!found) throw new AppError('not_found', `No brand ${input.brandId}.`);
  if (!roleAllows(found.member.role, 'members.sign_in_policy')) {
    throw new AppError(
      'insufficient_permission',
      `A brand ${found.member.role} cannot do this (members.sign_in_policy); ask a brand owner.`,
    );
  }
  if (session.sign_in_method === 'link') {
    throw new AppError(
      'passkey_session_required',
      'Sign in with a passkey to change how members sign in: a session opened by an emailed link cannot.',
    );
  }
  if (found.brand.sign_in_policy === policy) return;
  await withTransaction(deps.pool, async (db) => {
    await db.query(`update brands set sign_in_policy = $2 where id = $1`, [found.brand.id, policy]);
    await insertActivity(db, {
      brandId: found.brand.id,
      action: 'brand.sign_in_policy_changed',
      actorMemberId: found.member.id,
      actorEmail: found.member.email,
      subjectId: found.brand.id,
      summary:
        policy === 'any'
          ? 'Members may sign in by emailed link again'
          : 'Members must sign in with a passkey',
    });
  });
}
