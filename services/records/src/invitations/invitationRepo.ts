import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339 } from '@brand/shared/db';
import type { RoleName } from '@brand/shared/enums';

type Db = Pool | PoolClient;

/** How an invitation ended; open invitations have none. */
export type InvitationOutcome = 'accepted' | 'declined' | 'withdrawn' | 'expired';

/** An invitation's state as people see it: an open one past its expiry is "expired". */
type InvitationState = 'pending' | InvitationOutcome;

/** One invitation (table member_invitations, migration 0023), with its brand's name. */
export interface InvitationRow {
  id: string;
  brand_id: string;
  brand_name: string;
  email: string;
  role: RoleName;
  invited_by_email: string;
  created_at: string;
  expires_at: string;
  state: InvitationState;
}

const COLUMNS = `i.id, i.brand_id, b.name as brand_name, i.email, i.role, i.invited_by_email,
  ${rfc3339('i.created_at')} as created_at, ${rfc3339('i.expires_at')} as expires_at,
  case when i.outcome is not null then i.outcome
       when i.expires_at <= now() then 'expired' else 'pending' end as state`;

const FROM = 'member_invitations i join brands b on b.id = i.brand_id';

/** An open invitation is one nobody answered yet (it may have expired). */
const OPEN = 'i.outcome is null';

export async function insertInvitation(
  db: Db,
  inv: {
    id: string;
    brandId: string;
    email: string;
    role: RoleName;
    invitedByMemberId: string;
    invitedByEmail: string;
    ttlMs: number;
  },
): Promise<void> {
  await db.query(
    `insert into member_invitations
       (id, brand_id, email, role, invited_by_member_id, invited_by_email, expires_at)
     values ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond')`,
    [
      inv.id,
      inv.brandId,
      inv.email,
      inv.role,
      inv.invitedByMemberId,
      inv.invitedByEmail,
      inv.ttlMs,
    ],
  );
}

export async function selectInvitation(db: Db, id: string): Promise<InvitationRow | undefined> {
  const r = await db.query<InvitationRow>(`select ${COLUMNS} from ${FROM} where i.id = $1`, [id]);
  return r.rows[0];
}

/** The invitation whose newest mailed link has this token hash, in any state. */
export async function selectInvitationByToken(
  db: Db,
  tokenHash: Buffer,
): Promise<InvitationRow | undefined> {
  const r = await db.query<InvitationRow>(
    `select ${COLUMNS} from ${FROM} where i.token_hash = $1`,
    [tokenHash],
  );
  return r.rows[0];
}

/** A brand's open invitations (pending or expired), newest first. */
export async function selectOpenInvitationsOfBrand(
  db: Db,
  brandId: string,
): Promise<InvitationRow[]> {
  const r = await db.query<InvitationRow>(
    `select ${COLUMNS} from ${FROM} where i.brand_id = $1 and ${OPEN}
      order by i.created_at desc, i.id desc`,
    [brandId],
  );
  return r.rows;
}

/** An address's pending invitations (open, not expired), newest first. */
export async function selectPendingInvitationsOf(db: Db, email: string): Promise<InvitationRow[]> {
  const r = await db.query<InvitationRow>(
    `select ${COLUMNS} from ${FROM} where i.email = $1 and ${OPEN} and i.expires_at > now()
      order by i.created_at desc, i.id desc`,
    [email],
  );
  return r.rows;
}

/**
 * Locks an invitation for answering and returns its raw state: whether it is open and whether
 * it has expired. Answers run one at a time per invitation, so an accept racing a withdraw
 * cannot both win.
 */
export async function lockInvitation(
  db: PoolClient,
  id: string,
): Promise<{ open: boolean; expired: boolean } | undefined> {
  const r = await db.query<{ open: boolean; expired: boolean }>(
    `select outcome is null as open, expires_at <= now() as expired
       from member_invitations where id = $1 for update`,
    [id],
  );
  return r.rows[0];
}

/** Closes an open invitation with its outcome; false when it was not open. */
export async function closeInvitation(
  db: Db,
  id: string,
  outcome: InvitationOutcome,
): Promise<boolean> {
  const r = await db.query(
    `update member_invitations set outcome = $2, answered_at = now()
      where id = $1 and outcome is null`,
    [id, outcome],
  );
  return (r.rowCount ?? 0) > 0;
}

/** The id of the brand's open invitation of the address (unlocked; at most one, the unique index). */
export async function selectOpenInvitationId(
  db: Db,
  brandId: string,
  email: string,
): Promise<string | undefined> {
  const r = await db.query<{ id: string }>(
    `select id from member_invitations where brand_id = $1 and email = $2 and outcome is null`,
    [brandId, email],
  );
  return r.rows[0]?.id;
}

/** The ids of the open invitations a member sent (unlocked), oldest first. */
export async function selectOpenInvitationIdsSentBy(db: Db, memberId: string): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `select id from member_invitations
      where invited_by_member_id = $1 and outcome is null order by created_at, id`,
    [memberId],
  );
  return r.rows.map((row) => row.id);
}

/**
 * The brand's open invitation of the address, locked, or undefined: inviting again closes an
 * expired one first (the unique index allows one open invitation per brand and address).
 */
export async function lockOpenInvitation(
  db: PoolClient,
  brandId: string,
  email: string,
): Promise<{ id: string; expired: boolean } | undefined> {
  const r = await db.query<{ id: string; expired: boolean }>(
    `select id, expires_at <= now() as expired from member_invitations
      where brand_id = $1 and email = $2 and outcome is null for update`,
    [brandId, email],
  );
  return r.rows[0];
}

/** How many invitations the brand sent the address in the last day, and how many it holds open. */
export async function countRecentInvitations(
  db: Db,
  brandId: string,
  email: string,
): Promise<{ toAddress: number; open: number }> {
  const r = await db.query<{ to_address: number; open: number }>(
    `select (select count(*)::int from member_invitations
              where brand_id = $1 and email = $2 and created_at > now() - interval '1 day')
              as to_address,
            (select count(*)::int from member_invitations
              where brand_id = $1 and outcome is null and expires_at > now()) as open`,
    [brandId, email],
  );
  return { toAddress: r.rows[0]!.to_address, open: r.rows[0]!.open };
}

/**
 * Gives a pending invitation the hash of a new link token (its mail is being sent); false when
 * it is no longer pending, so no link is mailed for it.
 */
export async function setInvitationToken(db: Db, id: string, tokenHash: Buffer): Promise<boolean> {
  const r = await db.query(
    `update member_invitations set token_hash = $2
      where id = $1 and outcome is null and expires_at > now()`,
    [id, tokenHash],
  );
  return (r.rowCount ?? 0) > 0;
}
