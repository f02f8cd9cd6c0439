import type { Pool, PoolClient } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';

type Db = Pool | PoolClient;

/** What records asks the console to mail (table member_mails, migration 0023). */
export type MemberMailKind =
  | 'invitation'
  | 'sso_provider_set'
  | 'domain_proof_missing'
  | 'domain_proof_failed'
  | 'passkey_added';

/** What a mail says beyond its kind, as stored in its details. */
export interface MemberMailDetails {
  issuer?: string;
  setBy?: string;
  domain?: string;
  failsAt?: string;
  /** passkey_added: the passkey's name, and how the session that added it was opened. */
  passkeyName?: string;
  sessionMethod?: string;
}

/** A mail leased to a console, with its brand's name ('' for a mail of no brand). */
export interface ClaimedMailRow {
  id: string;
  kind: MemberMailKind;
  email: string;
  brand_id: string;
  brand_name: string;
  invitation_id: string | null;
  details: MemberMailDetails;
}

/** Queues the invitation's mail to the invited address. */
export async function insertInvitationMail(
  db: Db,
  m: { invitationId: string; brandId: string; email: string },
): Promise<void> {
  await db.query(
    `insert into member_mails (id, kind, email, brand_id, invitation_id)
     values ($1, 'invitation', $2, $3, $4)`,
    [newId('memberMail'), m.email, m.brandId, m.invitationId],
  );
}

/** Queues one mail of this kind to each current owner of the brand; how many were queued. */
export async function insertOwnerMails(
  db: Db,
  brandId: string,
  kind: Exclude<MemberMailKind, 'invitation'>,
  details: MemberMailDetails,
): Promise<number> {
  const owners = await db.query<{ email: string }>(
    `select email from brand_members
      where brand_id = $1 and role = 'owner' and removed_at is null order by created_at, id`,
    [brandId],
  );
  for (const { email } of owners.rows) {
    await db.query(
      `insert into member_mails (id, kind, email, brand_id, details) values ($1, $2, $3, $4, $5)`,
      [newId('memberMail'), kind, email, brandId, JSON.stringify(details)],
    );
  }
  return owners.rows.length;
}

/** Forgets the invitation's unsent mails (it was withdrawn or answered). */
export async function deleteInvitationMails(db: Db, invitationId: string): Promise<void> {
  await db.query(`delete from member_mails where invitation_id = $1`, [invitationId]);
}

/** Queues a mail to one address about the address itself (a passkey added), of no brand. */
export async function insertAddressMail(
  db: Db,
  m: { kind: 'passkey_added'; email: string; details: MemberMailDetails },
): Promise<void> {
  await db.query(`insert into member_mails (id, kind, email, details) values ($1, $2, $3, $4)`, [
    newId('memberMail'),
    m.kind,
    m.email,
    JSON.stringify(m.details),
  ]);
}

/**
 * Leases up to `limit` mails not leased now (never claimed, or whose lease ran out), oldest
 * first. SKIP LOCKED: consoles claiming at once take different mails.
 */
export async function claimMemberMails(
  db: Db,
  limit: number,
  leaseMs: number,
): Promise<ClaimedMailRow[]> {
  const r = await db.query<ClaimedMailRow>(
    `with due as (
       select id from member_mails
        where claimed_until is null or claimed_until < now()
        order by created_at, id limit $1 for update skip locked)
     update member_mails m set claimed_until = now() + $2 * interval '1 millisecond'
       from due
      where m.id = due.id
     returning m.id, m.kind, m.email, coalesce(m.brand_id, '') as brand_id,
               coalesce((select b.name from brands b where b.id = m.brand_id), '') as brand_name,
               m.invitation_id, m.details`,
    [limit, leaseMs],
  );
  return r.rows;
}

/** Forgets mails that were sent (or will never be). */
export async function deleteMemberMails(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(`delete from member_mails where id = any($1::text[])`, [ids]);
}
