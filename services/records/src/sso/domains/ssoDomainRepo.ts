import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339, SQLSTATE, sqlState } from '@brand/shared/db';
import { newDomainToken } from './domainProof';
import { firstCharacters } from '@brand/shared/text';

type Db = Pool | PoolClient;

type DomainState = 'pending' | 'verified' | 'failed';

/** One domain of a brand's connection and its proof (table sso_domains, migration 0019). */
export interface SsoDomainRow {
  brand_id: string;
  domain: string;
  token: string;
  state: DomainState;
  /** RFC 3339, or null. */
  checked_at: string | null;
  verified_at: string | null;
  problem: string | null;
  /** A verified domain whose record the re-check no longer finds: since when (RFC 3339). */
  proof_missing_since: string | null;
}

const COLUMNS = `d.brand_id, d.domain, d.token, d.state, ${rfc3339('d.checked_at')} as checked_at,
  ${rfc3339('d.verified_at')} as verified_at, d.problem,
  ${rfc3339('d.proof_missing_since')} as proof_missing_since`;

/** The brand's domains, in the order of its connection's allowed_domains. */
export async function selectSsoDomains(db: Db, brandId: string): Promise<SsoDomainRow[]> {
  const r = await db.query<SsoDomainRow>(
    `select ${COLUMNS} from sso_domains d join sso_connections c using (brand_id)
      where d.brand_id = $1 order by array_position(c.allowed_domains, d.domain::text)`,
    [brandId],
  );
  return r.rows;
}

/**
 * Makes the brand's domain rows match its connection's domains, in the transaction that saves
 * the connection: a domain removed loses its proof (and frees it for another brand), a domain
 * added starts pending with a new token, a domain kept keeps its state and token.
 */
export async function syncSsoDomains(
  db: PoolClient,
  brandId: string,
  domains: readonly string[],
): Promise<void> {
  await db.query(`delete from sso_domains where brand_id = $1 and domain <> all($2::text[])`, [
    brandId,
    domains,
  ]);
  await db.query(
    `insert into sso_domains (brand_id, domain, token)
     select $1, d.domain, d.token from unnest($2::text[], $3::text[]) as d(domain, token)
     on conflict (brand_id, domain) do nothing`,
    [brandId, domains, domains.map(() => newDomainToken())],
  );
}

/**
 * Records a proof found of `token`, inside the caller's transaction, only while the domain still
 * waits on that value: a check that read it before the connection was re-pointed (which issues
 * a new one) and heard from DNS after proves nothing for the new provider, and answers 'stale'.
 * The unique index on verified domains decides, in the database, that a domain another brand
 * verified stays that brand's: answers 'held_elsewhere' then (two brands proving one domain at
 * the same moment cannot both win), and the transaction goes on (a savepoint takes the refused
 * statement back).
 */
export async function markDomainVerified(
  db: PoolClient,
  brandId: string,
  domain: string,
  token: string,
): Promise<'verified' | 'held_elsewhere' | 'stale'> {
  await db.query('savepoint mark_domain_verified');
  try {
    const marked = await db.query(
      `update sso_domains set state = 'verified', verified_at = now(), checked_at = now(),
              problem = null
        where brand_id = $1 and domain = $2 and token = $3 and state <> 'verified'`,
      [brandId, domain, token],
    );
    await db.query('release savepoint mark_domain_verified');
    return marked.rowCount === 1 ? 'verified' : 'stale';
  } catch (err) {
    if (sqlState(err) !== SQLSTATE.uniqueViolation) throw err;
    await db.query('rollback to savepoint mark_domain_verified');
    return 'held_elsewhere';
  }
}

/**
 * Records a check of `token` that found no proof (a verified domain is never demoted by one, and
 * a check of a value since replaced says nothing of the new one).
 */
export async function markDomainFailed(
  db: Db,
  brandId: string,
  domain: string,
  token: string,
  problem: string,
): Promise<void> {
  await db.query(
    `update sso_domains set state = 'failed', checked_at = now(), problem = $4
      where brand_id = $1 and domain = $2 and token = $3 and state <> 'verified'`,
    [brandId, domain, token, firstCharacters(problem, 300)],
  );
}

/**
 * The brand whose enabled connection has verified `domain`: at most one, since a verified
 * domain belongs to one brand (the unique index). Routing a sign-in by address reads only this,
 * so a brand that merely lists a domain captures nobody and hides nobody.
 */
export async function selectBrandVerifiedFor(db: Db, domain: string): Promise<string | undefined> {
  const r = await db.query<{ brand_id: string }>(
    `select d.brand_id from sso_domains d join sso_connections c using (brand_id)
      where d.domain = $1 and d.state = 'verified' and c.enabled`,
    [domain],
  );
  return r.rows[0]?.brand_id;
}

/** The brand's verified domains (an SSO callback admits addresses at these only). */
export async function selectVerifiedDomains(db: Db, brandId: string): Promise<string[]> {
  const r = await db.query<{ domain: string }>(
    `select domain from sso_domains where brand_id = $1 and state = 'verified'`,
    [brandId],
  );
  return r.rows.map((row) => row.domain);
}

/**
 * Takes the proof from every domain of the brand, inside the caller's transaction: each, verified
 * or still waiting for its record, goes back to pending with a new token, so a record published
 * for the old provider proves nothing and whoever runs the domain's DNS must vouch again (issue
 * 59 part 4; a waiting domain too since a hostile review of 2026-11-29: its record, already
 * published, verified it for the new provider). Returns the domains unproven.
 */
export async function unproveDomains(db: PoolClient, brandId: string): Promise<string[]> {
  // created before this transaction: a domain the same change added has a fresh token already
  const r = await db.query<{ domain: string }>(
    `select domain from sso_domains where brand_id = $1 and created_at < now() order by domain`,
    [brandId],
  );
  for (const { domain } of r.rows) {
    await db.query(
      `update sso_domains set state = 'pending', token = $3, verified_at = null, checked_at = null,
              problem = null, proof_seen_at = null, proof_missing_since = null
        where brand_id = $1 and domain = $2`,
      [brandId, domain, newDomainToken()],
    );
  }
  return r.rows.map((row) => row.domain);
}

/** A verified domain due for its scheduled check, leased by the claim. */
export interface DomainToRecheck {
  brand_id: string;
  domain: string;
  token: string;
  proof_missing_since: Date | null;
  missing_checks: number;
}

/**
 * Leases up to `limit` verified domains last checked more than `intervalMs` ago, oldest check
 * first: the claim writes checked_at, so another replica (SKIP LOCKED) or the next round does not
 * take them again. Domains of a connection turned off are checked too (they still hold the
 * domain for the brand).
 */
export async function claimDomainsToRecheck(
  db: Db,
  q: { intervalMs: number; limit: number },
): Promise<DomainToRecheck[]> {
  const r = await db.query<DomainToRecheck>(
    `with due as (
       select brand_id, domain from sso_domains
        where state = 'verified' and checked_at < now() - $1 * interval '1 millisecond'
        order by checked_at limit $2 for update skip locked)
     update sso_domains d set checked_at = now() from due
      where d.brand_id = due.brand_id and d.domain = due.domain
     returning d.brand_id, d.domain, d.token, d.proof_missing_since, d.missing_checks`,
    [q.intervalMs, q.limit],
  );
  return r.rows;
}

/**
 * The record was found again: the domain stays verified, nothing is missing. This and the two
 * below act only while the domain still holds the value the check asked DNS about: an answer
 * about a value since replaced (the connection re-pointed and verified anew meanwhile) says
 * nothing of the new one, and once mailed the owners a spurious "proof missing" (a review).
 */
export async function markProofSeen(
  db: Db,
  brandId: string,
  domain: string,
  token: string,
): Promise<void> {
  await db.query(
    `update sso_domains set proof_seen_at = now(), proof_missing_since = null, missing_checks = 0,
            problem = null
      where brand_id = $1 and domain = $2 and token = $3 and state = 'verified'`,
    [brandId, domain, token],
  );
}

/** The record was missing on one more check; answers since when it has been missing. */
export async function markProofMissing(
  db: Db,
  brandId: string,
  domain: string,
  token: string,
  problem: string,
): Promise<{ since: Date; checks: number } | undefined> {
  const r = await db.query<{ since: Date; checks: number }>(
    `update sso_domains set proof_missing_since = coalesce(proof_missing_since, now()),
            missing_checks = missing_checks + 1, problem = $4
      where brand_id = $1 and domain = $2 and token = $3 and state = 'verified'
      returning proof_missing_since as since, missing_checks as checks`,
    [brandId, domain, token, firstCharacters(problem, 300)],
  );
  return r.rows[0];
}

/**
 * The record stayed missing past the grace period: the domain is no longer verified, so it routes
 * no sign-in and is free for whoever proves it next. The owners publish the record again and
 * press Verify now.
 */
export async function markProofLost(
  db: Db,
  brandId: string,
  domain: string,
  token: string,
  problem: string,
): Promise<boolean> {
  const r = await db.query(
    `update sso_domains set state = 'failed', verified_at = null, problem = $4
      where brand_id = $1 and domain = $2 and token = $3 and state = 'verified'`,
    [brandId, domain, token, firstCharacters(problem, 300)],
  );
  return (r.rowCount ?? 0) > 0;
}
