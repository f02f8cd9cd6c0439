import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { actorEmail, actorMemberId, authorize, type Actor } from '@brand/shared/console';
import { withTransaction, type Pool } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { currentActor } from '../access/currentActor';
import { reauthorizeUnderBrand } from '../access/reauthorizeUnderBrand';
import { brandId } from '../access/inputs';
import { hashToken, TOKEN_PATTERN } from '../sessions/tokens';

/** A live session the brand's single sign-on opened, as its owners see it. */
export interface BrandSsoSessionRow {
  id: string;
  email: string;
  member_id: string;
  user_agent: string;
  client_address: string;
  created_at: Date;
  last_seen_at: Date;
  sso_checked_at: Date | null;
  current: boolean;
}

const SESSION_ID = /^ses_[A-Za-z0-9]{1,64}$/;
const noBrand = (id: string) => () => new AppError('not_found', `No brand ${id}.`);

/** The brand, once the actor may see and end its SSO sessions (owners: members.sessions). */
async function authorizedBrand(pool: Pool, actor: Actor, id: string): Promise<string> {
  const v = parseOrThrow(z.object({ brandId }), { brandId: id });
  authorize(await currentActor(pool, actor), 'members.sessions', v.brandId, noBrand(v.brandId));
  return v.brandId;
}

/** The asking session's token hash, or null (an operator, or no token). */
const tokenHashOf = (token: string): Buffer | null =>
  TOKEN_PATTERN.test(token) ? hashToken(token) : null;

/**
 * Every live session the brand's single sign-on opened, any member's, newest first (issue 42:
 * an owner could not see or end another member's sessions). Only sessions of this brand: a
 * session of another brand's SSO, or one of an address (link, passkey), is not the brand's.
 */
export async function listBrandSsoSessions(
  deps: { pool: Pool; idleMs: number },
  actor: Actor,
  input: { brandId: string; sessionToken: string },
): Promise<BrandSsoSessionRow[]> {
  const brand = await authorizedBrand(deps.pool, actor, input.brandId);
  const r = await deps.pool.query<BrandSsoSessionRow>(
    `select s.id, s.email, coalesce(m.id, '') as member_id, s.user_agent, s.client_address,
            s.created_at, s.last_seen_at, s.sso_checked_at,
            coalesce(s.token_hash = $3, false) as current
     from console_sessions s
     left join brand_members m
       on m.brand_id = s.sso_brand_id and m.email = s.email and m.removed_at is null
     where s.sso_brand_id = $1 and s.ended_at is null and s.expires_at > now()
       and s.last_seen_at > now() - $2 * interval '1 millisecond'
     order by s.created_at desc, s.id desc
     limit 500`,
    [brand, deps.idleMs, tokenHashOf(input.sessionToken)],
  );
  return r.rows;
}

/**
 * Ends one SSO session of the brand and records member.session_ended in its activity, naming
 * who ended it. not_found for anything that is not a live SSO session of this brand.
 */
export async function endBrandSsoSession(
  deps: { pool: Pool },
  actor: Actor,
  input: { brandId: string; sessionId: string; sessionToken: string },
): Promise<{ endedCurrent: boolean }> {
  const brand = await authorizedBrand(deps.pool, actor, input.brandId);
  const notFound = () => new AppError('not_found', `No session ${input.sessionId}.`);
  if (!SESSION_ID.test(input.sessionId)) throw notFound();
  return withTransaction(deps.pool, async (db) => {
    // Again under the brand's row: an end queued behind its actor's demotion or removal went
    // ahead on authority they no longer had (a review, 2026-12-01).
    await reauthorizeUnderBrand(db, actor, 'members.sessions', brand, noBrand(brand));
    const r = await db.query<{ email: string; member_id: string; current: boolean }>(
      `update console_sessions s set ended_at = now()
       where s.id = $1 and s.sso_brand_id = $2 and s.ended_at is null
       returning s.email,
         coalesce((select m.id from brand_members m
                   where m.brand_id = $2 and m.email = s.email and m.removed_at is null), '')
           as member_id,
         coalesce(s.token_hash = $3, false) as current`,
      [input.sessionId, brand, tokenHashOf(input.sessionToken)],
    );
    const ended = r.rows[0];
    if (!ended) throw notFound();
    await insertActivity(db, {
      brandId: brand,
      action: 'member.session_ended',
      actorMemberId: actorMemberId(actor),
      actorEmail: actorEmail(actor),
      subjectId: ended.member_id,
      summary: `${actorEmail(actor)} ended a single sign-on session of ${ended.email}`,
    });
    return { endedCurrent: ended.current };
  });
}
