import { insertActivity } from '@brand/shared/activity';
import { actorEmail, actorMemberId, type Actor } from '@brand/shared/console';
import { withTransaction } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import type { SsoConnectionDeps } from '../ssoConnectionService';
import { authorized } from '../ssoConnectionService';
import { selectSsoConnection } from '../ssoConnectionRepo';
import {
  markDomainFailed,
  markDomainVerified,
  selectSsoDomains,
  type SsoDomainRow,
} from './ssoDomainRepo';
import { firstCharacters } from '@brand/shared/text';

/** What another brand's proof of a domain looks like to this one: a problem, not an error. */
const HELD_ELSEWHERE =
  'Another brand has verified this domain: it belongs to one brand at a time. That brand must remove it from its single sign-on first.';

/**
 * "Verify now": looks up the brand's proof of one domain of its connection (dnsProofFinder,
 * through the operator's resolvers) and records what it found. Owners (members.sso) and
 * operators. A verified domain is answered as it is, without a lookup: it stays verified while
 * it is in the connection. A proof found for a domain another brand verified leaves it failed
 * ("held by another brand", decided by the database's unique index). Each domain verified is in
 * the brand's activity (brand.sso_domain_verified).
 */
export async function verifySsoDomain(
  deps: SsoConnectionDeps,
  actor: Actor,
  input: { brandId: string; domain: string },
): Promise<SsoDomainRow> {
  const brand = await authorized(deps.pool, actor, input.brandId);
  const domain = input.domain.trim().toLowerCase();
  const connection = await selectSsoConnection(deps.pool, brand.id);
  const row = connection
    ? (await selectSsoDomains(deps.pool, brand.id)).find((d) => d.domain === domain)
    : undefined;
  if (!row) {
    throw new AppError(
      'not_found',
      `${firstCharacters(domain, 64)} is not a domain of ${brand.name}’s single sign-on.`,
    );
  }
  if (row.state === 'verified') return row;
  const found = await deps.findProof(row.domain, row.token);
  if (!found.found) {
    await markDomainFailed(deps.pool, brand.id, row.domain, row.token, found.problem);
  } else {
    await withTransaction(deps.pool, async (db) => {
      const marked = await markDomainVerified(db, brand.id, row.domain, row.token);
      if (marked === 'stale') return; // re-pointed meanwhile: the new value waits on its own proof
      if (marked === 'held_elsewhere') {
        await markDomainFailed(db, brand.id, row.domain, row.token, HELD_ELSEWHERE);
        return;
      }
      await insertActivity(db, {
        brandId: brand.id,
        action: 'brand.sso_domain_verified',
        actorMemberId: actorMemberId(actor),
        actorEmail: actorEmail(actor),
        subjectId: brand.id,
        summary: `Single sign-on domain verified by DNS: ${row.domain}`,
      });
    });
  }
  const after = (await selectSsoDomains(deps.pool, brand.id)).find((d) => d.domain === domain);
  return after ?? row;
}
