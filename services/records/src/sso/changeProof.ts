import type { Actor } from '@brand/shared/console';
import type { Pool } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { hashToken, TOKEN_PATTERN } from '../sessions/tokens';

/**
 * When the acting owner's single sign-on through this brand last counted as fresh: the session
 * presented must be live, of the acting member's address, and opened by this brand's single
 * sign-on within `freshMs`. Answers when that freshness ends, or undefined (no session given,
 * another address's, opened another way or by another brand's provider, or too old).
 */
export async function freshSsoUntil(
  pool: Pool,
  q: { sessionToken: string; email: string; brandId: string; freshMs: number },
): Promise<Date | undefined> {
  if (!TOKEN_PATTERN.test(q.sessionToken)) return undefined;
  const r = await pool.query<{ fresh_until: Date }>(
    `select created_at + $4 * interval '1 millisecond' as fresh_until
       from console_sessions
      where token_hash = $1 and ended_at is null and expires_at > now()
        and email = $2 and sign_in_method = 'sso' and sso_brand_id = $3
        and created_at > now() - $4 * interval '1 millisecond'`,
    [hashToken(q.sessionToken), q.email, q.brandId, q.freshMs],
  );
  return r.rows[0]?.fresh_until;
}

/**
 * Changing a connection that is in use (enabled, with a verified domain) needs a fresh proof
 * through it (issue 42 part 4): someone holding only an owner's mailbox, or a session opened
 * long ago, cannot point the brand's sign-in at another provider or take its domains away.
 * Operators (the admin token) act on their own authority, as elsewhere. Throws
 * sso_proof_required with what to do.
 */
export async function requireFreshSsoProof(
  pool: Pool,
  actor: Actor,
  q: { sessionToken: string; brandId: string; brandName: string; freshMs: number },
): Promise<void> {
  if (actor.kind !== 'member') return;
  const until = await freshSsoUntil(pool, { ...q, email: actor.member.email });
  if (until) return;
  throw new AppError(
    'sso_proof_required',
    `${q.brandName}’s single sign-on is in use: changing it needs a fresh sign-in through it. Sign in with single sign-on (within the last ${Math.round(q.freshMs / 60_000)} minutes), then make the change.`,
  );
}
