import type { Pool, PoolClient } from '@brand/shared/db';

type Db = Pool | PoolClient;

/** Stores an accepted request for a sign-in link; the same statement for members and strangers. */
export async function insertSignInRequest(db: Db, r: { id: string; email: string }): Promise<void> {
  await db.query(`insert into sign_in_requests (id, email) values ($1, $2)`, [r.id, r.email]);
}

/**
 * Takes the transaction-scoped lock that runs claims one at a time, or answers false when
 * another transaction holds it. Without it two consoles could each mint a link for one
 * address, the second ending the first while it is being mailed.
 */
export async function tryLockSignInClaims(db: PoolClient): Promise<boolean> {
  const r = await db.query<{ locked: boolean }>(
    `select pg_try_advisory_xact_lock(hashtext('records.sign_in_requests')) as locked`,
  );
  return r.rows[0]!.locked;
}

/** Waits for the claims lock (see tryLockSignInClaims), for changes that must not interleave. */
export async function lockSignInClaims(db: PoolClient): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtext('records.sign_in_requests'))`);
}

/** Forgets requests older than `maxAgeMs` that were never mailed; returns how many. */
export async function deleteExpiredSignInRequests(db: Db, maxAgeMs: number): Promise<number> {
  const r = await db.query(
    `delete from sign_in_requests where requested_at < now() - $1 * interval '1 millisecond'`,
    [maxAgeMs],
  );
  return r.rowCount ?? 0;
}

/**
 * Addresses whose requests may be claimed now, oldest request first, with those requests:
 * not leased to a console, and no link minted for the address within its spacing (which also
 * keeps a claimed address from being claimed again before its lease ends). The spacing is
 * `spacingMs` doubled for each further link of the last hour that went unused, up to
 * `maxSpacingMs` (at most an hour): whoever asks for a member's links over and over, from
 * however many clients, gets them mailed a few times an hour, and each lives its spacing.
 */
export async function selectClaimableSignInRequests(
  db: Db,
  opts: { spacingMs: number; maxSpacingMs: number; limit: number },
): Promise<{ email: string; ids: string[] }[]> {
  const r = await db.query<{ email: string; ids: string[] }>(
    `select r.email, array_agg(r.id order by r.id) as ids
     from sign_in_requests r
     left join lateral (
       select max(l.created_at) as last_minted,
              count(*) filter (where l.used_at is null) as unused
         from sign_in_links l
        where l.email = r.email and l.created_at > now() - interval '1 hour') recent on true
     where (r.claimed_until is null or r.claimed_until <= now())
       and (recent.last_minted is null
            or recent.last_minted <= now() - least($3::float8,
                 $1::float8 * power(2, greatest(recent.unused - 1, 0)))
                 * interval '1 millisecond')
     group by r.email
     order by min(r.requested_at), r.email
     limit $2`,
    [opts.spacingMs, opts.limit, opts.maxSpacingMs],
  );
  return r.rows;
}

/** Leases requests to one claim until `leaseMs` from now. */
export async function markSignInRequestsClaimed(
  db: Db,
  c: { ids: string[]; claimId: string; leaseMs: number },
): Promise<void> {
  await db.query(
    `update sign_in_requests
     set claim_id = $2, claimed_until = now() + $3 * interval '1 millisecond'
     where id = any($1::text[])`,
    [c.ids, c.claimId, c.leaseMs],
  );
}

export async function deleteSignInRequests(db: Db, ids: string[]): Promise<void> {
  await db.query(`delete from sign_in_requests where id = any($1::text[])`, [ids]);
}

/** Forgets the requests of mailed claims. */
export async function deleteClaimedSignInRequests(db: Db, claimIds: string[]): Promise<void> {
  await db.query(`delete from sign_in_requests where claim_id = any($1::text[])`, [claimIds]);
}

/** Forgets every request of an address, mailed or not. */
export async function deleteSignInRequestsOf(db: Db, email: string): Promise<void> {
  await db.query(`delete from sign_in_requests where email = $1`, [email]);
}
