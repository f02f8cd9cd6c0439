import { insertActivity } from '@brand/shared/activity';
import { withTransaction, type Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import { startRecurringRounds, type RecurringRounds } from '@brand/shared/service';
import { insertOwnerMails } from '../../memberMails/memberMailRepo';
import {
  claimDomainsToRecheck,
  markProofLost,
  markProofMissing,
  markProofSeen,
  type DomainToRecheck,
} from './ssoDomainRepo';
import type { ProofFinder } from './txtLookup';

export interface DomainRecheckDeps {
  pool: Pool;
  log: Logger;
  findProof: ProofFinder;
  /** Each verified domain is looked up again once its last check is this old (a day). */
  intervalMs: number;
  /** A record missing this long, on MISSING_CHECKS checks in a row, ends the proof (72 h). */
  graceMs: number;
}

/** Checks in a row a record must be missing, beside the grace period, before the proof ends. */
const MISSING_CHECKS = 3;
/** Domains checked per round at most; the rest wait for the next round. */
const BATCH = 50;

/**
 * One domain's scheduled check (issue 59 part 6: a verified domain was never checked again, so a
 * domain whose owner removed the record, or sold it, went on routing sign-ins). Found: nothing
 * changes. Missing (the DNS answered without this brand's value): the first time, every owner is
 * mailed with the date the domain stops counting; once it has been missing for `graceMs` and
 * MISSING_CHECKS checks, the domain is failed, the owners are mailed again, and it routes no
 * sign-in. A DNS that does not answer counts for nothing either way.
 */
async function recheckDomain(deps: DomainRecheckDeps, d: DomainToRecheck): Promise<void> {
  const found = await deps.findProof(d.domain, d.token);
  if (found.found) {
    await markProofSeen(deps.pool, d.brand_id, d.domain, d.token);
    if (d.proof_missing_since) {
      deps.log.info({ brand_id: d.brand_id, domain: d.domain }, 'domain proof found again');
    }
    return;
  }
  if (found.unanswered) {
    deps.log.warn({ brand_id: d.brand_id, domain: d.domain }, 'DNS did not answer a re-check');
    return;
  }
  await withTransaction(deps.pool, async (db) => {
    const missing = await markProofMissing(db, d.brand_id, d.domain, d.token, found.problem);
    if (!missing) return;
    const failsAt = new Date(missing.since.getTime() + deps.graceMs);
    if (missing.checks === 1) {
      await insertOwnerMails(db, d.brand_id, 'domain_proof_missing', {
        domain: d.domain,
        failsAt: failsAt.toISOString(),
      });
      await insertActivity(
        db,
        systemEntry(
          d,
          'brand.sso_domain_proof_missing',
          `The DNS record proving ${d.domain} was not found (${found.problem}); the owners were mailed. Unless it is found again, the domain stops routing sign-ins at ${failsAt.toISOString()}`,
        ),
      );
      return;
    }
    if (missing.checks < MISSING_CHECKS || failsAt.getTime() > Date.now()) return;
    if (
      !(await markProofLost(
        db,
        d.brand_id,
        d.domain,
        d.token,
        `The DNS record was missing on ${missing.checks} checks since ${missing.since.toISOString()}: publish it again and verify.`,
      ))
    )
      return;
    await insertOwnerMails(db, d.brand_id, 'domain_proof_failed', { domain: d.domain });
    await insertActivity(
      db,
      systemEntry(
        d,
        'brand.sso_domain_failed',
        `${d.domain} is no longer verified: its DNS record was missing on ${missing.checks} checks since ${missing.since.toISOString()}. Nobody at it signs in with single sign-on until it is proven again`,
      ),
    );
  });
}

/** An activity entry the service itself writes (no member acted). */
function systemEntry(d: DomainToRecheck, action: string, summary: string) {
  return {
    brandId: d.brand_id,
    action,
    actorMemberId: '',
    actorEmail: 'records',
    subjectId: d.brand_id,
    summary,
  };
}

/** Re-checks every domain due, a batch at a time; answers how many it checked. */
async function recheckDomainsOnce(deps: DomainRecheckDeps): Promise<number> {
  let checked = 0;
  for (;;) {
    const due = await claimDomainsToRecheck(deps.pool, {
      intervalMs: deps.intervalMs,
      limit: BATCH,
    });
    for (const d of due) {
      await recheckDomain(deps, d).catch((err: unknown) =>
        deps.log.warn({ err, brand_id: d.brand_id, domain: d.domain }, 'domain re-check failed'),
      );
    }
    checked += due.length;
    if (due.length < BATCH) return checked;
  }
}

/**
 * Re-checks verified domains every SSO_DOMAIN_RECHECK_INTERVAL_MS. Rounds run a twentieth of the
 * interval apart (1 s to 1 h), so a domain is checked at most that much after it is due; claiming
 * is one statement with SKIP LOCKED, so replicas share the work.
 */
export function startDomainRecheck(deps: DomainRecheckDeps): RecurringRounds {
  return startRecurringRounds(() => recheckDomainsOnce(deps), {
    everyMs: Math.min(3_600_000, Math.max(1_000, Math.floor(deps.intervalMs / 20))),
    log: deps.log,
    what: 'the domain re-check',
  });
}
