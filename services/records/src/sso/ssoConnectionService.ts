import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { actorEmail, actorMemberId, authorize, type Actor } from '@brand/shared/console';
import { withTransaction, type Pool } from '@brand/shared/db';
import { AppError, fieldIssues, parseOrThrow } from '@brand/shared/errors';
import { refuseUnlessOneLine } from '@brand/shared/text';
import type { Logger } from '@brand/shared/logger';
import type { SecretBox } from '@brand/shared/secrets';
import { selectBrand } from '../access/brandRepo';
import { currentActor } from '../access/currentActor';
import { reauthorizeUnderBrand } from '../access/reauthorizeUnderBrand';
import { brandId } from '../access/inputs';
import { lockBrandMembers, selectOwnerEmails } from '../access/memberRepo';
import { insertOwnerMails } from '../memberMails/memberMailRepo';
import { freshSsoUntil, requireFreshSsoProof } from './changeProof';
import { selectVerifiedDomains, syncSsoDomains, unproveDomains } from './domains/ssoDomainRepo';
import type { ProofFinder } from './domains/txtLookup';
import { allowedDomains } from './allowedDomains';
import { checkIssuer } from './issuerUrl';
import { assertOwnersKeepAWayIn } from './ownerWayIn';
import { discoverProvider } from './oidcClient';
import { providerRefusalIn } from './provider/providerFetch';
import type { ProviderPolicy } from './provider/providerPolicy';
import {
  deleteSsoConnection,
  lockSsoConnection,
  selectSsoConnection,
  upsertSsoConnection,
  type SsoConnectionRow,
} from './ssoConnectionRepo';
import { endBrandSsoSessions } from './ssoSessionRepo';

/** What managing a brand's connection needs; without `box` (no WEBHOOK_SECRET_KEY) it is refused. */
export interface SsoConnectionDeps {
  pool: Pool;
  log: Logger;
  box: SecretBox | undefined;
  /** Where records may send requests on a provider's say-so (the egress policy). */
  providerPolicy: ProviderPolicy;
  /** Looks up a brand's DNS proof of a domain (the operator's resolvers). */
  findProof: ProofFinder;
  /** How long a single sign-on counts as a fresh proof for changing the connection (10 min). */
  changeProofMs: number;
  /** How long a verified domain's record may be missing before it stops counting (72 h). */
  domainGraceMs: number;
}

const ConnectionInput = z.object({
  brandId,
  issuer: z.string().max(512, 'The issuer is at most 512 characters.'),
  clientId: z
    .string()
    .trim()
    .min(1, 'Enter the client id your identity provider gave you.')
    .max(255, 'The client id is at most 255 characters.')
    // shown on the single sign-on page, which an owner reads: the rules of every name
    .superRefine(refuseUnlessOneLine((why) => `The client id ${why}.`)),
  // One line too (a line break is a paste gone wrong), without control characters, and no lone
  // surrogate, which UTF-8 (what the provider is sent) cannot carry. Text-direction controls are
  // let through: names refuse them because they reorder what a person reads, and the secret is
  // never shown (the page leaves its field empty), so nobody reads it reordered.
  clientSecret: z
    .string()
    .max(1024, 'The client secret is at most 1024 characters.')
    .superRefine(refuseUnlessOneLine((why) => `The client secret ${why}.`, 'secret')),
  allowedDomains,
  enabled: z.boolean(),
});

/**
 * The connection as asked for, or a refusal in sentences that each name their field in words
 * (the brand id is checked before, by `authorized`): the owner reads it above the form, where
 * "allowedDomains.0: " was a path of ours, not theirs. No field details: they cross gRPC as ASCII
 * metadata, and a refusal quoting “🚀.test” would fail to send (a 503 instead of a 400).
 */
function connectionOf(input: z.input<typeof ConnectionInput>): z.output<typeof ConnectionInput> {
  const result = ConnectionInput.safeParse(input);
  if (result.success) return result.data;
  throw new AppError(
    'validation_failed',
    fieldIssues(result.error)
      .map((d) => d.message)
      .join(' '),
  );
}

const noBrand = (id: string) => () => new AppError('not_found', `No brand ${id}.`);

/** The caller may manage this brand's connection (owners; operators), and the brand exists. */
export async function authorized(pool: Pool, actor: Actor, id: string) {
  const v = parseOrThrow(z.object({ brandId }), { brandId: id });
  authorize(await currentActor(pool, actor), 'members.sso', v.brandId, noBrand(v.brandId));
  const brand = await selectBrand(pool, v.brandId);
  if (!brand) throw noBrand(v.brandId)();
  return brand;
}

/**
 * The brand's connection, or undefined, and whether changing it needs a fresh single sign-on
 * (it is in use: enabled, with a verified domain) and until when the asking session gives one.
 * Owners only: it names the brand's provider.
 */
export async function getSsoConnection(
  deps: SsoConnectionDeps,
  actor: Actor,
  input: { brandId: string; sessionToken: string },
): Promise<{ connection?: SsoConnectionRow; proofRequired: boolean; freshUntil?: Date }> {
  const brand = await authorized(deps.pool, actor, input.brandId);
  const connection = await selectSsoConnection(deps.pool, brand.id);
  if (!connection) return { proofRequired: false };
  const proofRequired = await inUse(deps.pool, connection);
  const freshUntil =
    actor.kind === 'member'
      ? await freshSsoUntil(deps.pool, {
          sessionToken: input.sessionToken,
          email: actor.member.email,
          brandId: brand.id,
          freshMs: deps.changeProofMs,
        })
      : undefined;
  return { connection, proofRequired, freshUntil };
}

/** A connection is in use, a way in, when it is enabled with a verified domain. */
async function inUse(pool: Pool, connection: SsoConnectionRow): Promise<boolean> {
  return connection.enabled && (await selectVerifiedDomains(pool, connection.brand_id)).length > 0;
}

/**
 * Connects the brand's identity provider, or changes the connection. The issuer must answer
 * its discovery document for that very issuer (openid-client checks), so a typo is refused
 * here rather than at a member's sign-in. The secret is sealed with the brand id as
 * associated data; an empty one keeps the stored secret. A connection in use changes only with
 * a fresh single sign-on through it (sso_proof_required); while the brand requires SSO, a change
 * that would leave no current owner able to sign in is refused (sso_required). Domains new to
 * the connection start pending, with their record to publish; domains removed lose their proof.
 *
 * The whole connection is written, so it is written only onto the row it was decided on: the
 * caller's `ifUpdatedAt` (the console's read, whose untouched fields it sends back) and the row
 * read here for the checks below are compared with the row under its lock at the write, and a
 * connection changed meanwhile is precondition_failed. Written over unchecked, another owner's
 * "disable single sign-on" was undone by a domain edit from an older page (a hostile review of
 * lost updates, 2026-12-01).
 */
export async function setSsoConnection(
  deps: SsoConnectionDeps,
  actor: Actor,
  input: z.input<typeof ConnectionInput> & { sessionToken: string; ifUpdatedAt?: string },
): Promise<SsoConnectionRow> {
  const brand = await authorized(deps.pool, actor, input.brandId);
  const v = connectionOf(input);
  const checked = checkIssuer(v.issuer, deps.providerPolicy);
  // checkIssuer's sentences name the issuer in words, as connectionOf's name their fields
  if (!checked.ok) throw new AppError('validation_failed', checked.message);
  const box = deps.box;
  if (!box) {
    throw new AppError(
      'service_unavailable',
      'Single sign-on is not configured on this service (records has no WEBHOOK_SECRET_KEY).',
    );
  }
  const existing = await selectSsoConnection(deps.pool, brand.id);
  if (input.ifUpdatedAt !== undefined && existing?.updated_at !== input.ifUpdatedAt) {
    throw changedMeanwhile(brand.name);
  }
  if (existing && (await inUse(deps.pool, existing))) {
    await requireFreshSsoProof(deps.pool, actor, {
      sessionToken: input.sessionToken,
      brandId: brand.id,
      brandName: brand.name,
      freshMs: deps.changeProofMs,
    });
  }
  const verified = existing ? await selectVerifiedDomains(deps.pool, brand.id) : [];
  const providerChanged =
    existing !== undefined &&
    (existing.issuer !== checked.issuer || existing.client_id !== v.clientId);
  // A connection turned back on is a way in again, as a new provider is: an owner may have
  // turned it off because the provider was taken over (a review of 2026-11-30: a mailbox alone
  // turned it on again, domains still proven, and told nobody).
  const reenabled = existing !== undefined && !existing.enabled && v.enabled;
  // Issue 59 part 4: the new provider may vouch for the brand's domains only if the acting
  // owner just signed in through the current one; else their proofs go, and DNS must vouch,
  // for the verified domains and for those whose record is published but not yet checked.
  const unprove =
    (providerChanged || reenabled) && !(await provedFreshly(deps, actor, input, brand.id));
  assertOwnersKeepAWayIn(brand, await selectOwnerEmails(deps.pool, brand.id), {
    enabled: v.enabled,
    verifiedDomains: unprove ? [] : verified.filter((d) => v.allowedDomains.includes(d)),
    providerChanged,
  });
  let secret = v.clientSecret;
  if (secret === '') {
    if (!existing)
      throw new AppError(
        'validation_failed',
        'Enter the client secret your identity provider gave you.',
      );
    secret = box.open(
      { ciphertext: existing.client_secret_ciphertext, keyId: existing.client_secret_key_id },
      brand.id,
    );
  }
  try {
    await discoverProvider(
      { issuer: checked.issuer, clientId: v.clientId, clientSecret: secret },
      deps.providerPolicy,
    );
  } catch (err) {
    deps.log.info({ err, brand_id: brand.id }, 'SSO issuer discovery failed');
    const refused = providerRefusalIn(err);
    if (refused) {
      throw new AppError(
        'sso_provider_refused',
        `Records will not use this identity provider: ${refused.message}`,
      );
    }
    throw new AppError(
      'validation_failed',
      `The issuer did not answer a discovery document for itself at ${checked.issuer}/.well-known/openid-configuration.`,
    );
  }
  return withTransaction(deps.pool, async (db) => {
    // The brand's row first, as member changes take it: with no connection yet there is no row of
    // its own to lock, and two owners' first connections at once both went in, the second
    // written over the first unseen. Then the row the checks above were made on, under its lock
    // (the discovery took a while).
    await lockBrandMembers(db, brand.id);
    // The owner too, under that lock: a save queued behind their demotion or removal re-pointed
    // the brand's identity provider on authority they no longer had (a review, 2026-12-01).
    await reauthorizeUnderBrand(db, actor, 'members.sso', brand.id, noBrand(brand.id));
    if ((await lockSsoConnection(db, brand.id)) !== existing?.updated_at) {
      throw changedMeanwhile(brand.name);
    }
    const row = await upsertSsoConnection(db, {
      brandId: brand.id,
      issuer: checked.issuer,
      clientId: v.clientId,
      secret: v.clientSecret === '' ? undefined : box.seal(v.clientSecret, brand.id),
      allowedDomains: v.allowedDomains,
      enabled: v.enabled,
    });
    await syncSsoDomains(db, brand.id, row.allowed_domains);
    await insertActivity(db, {
      brandId: brand.id,
      action: existing ? 'brand.sso_changed' : 'brand.sso_connected',
      actorMemberId: actorMemberId(actor),
      actorEmail: actorEmail(actor),
      subjectId: brand.id,
      summary: `${existing ? 'Single sign-on changed' : 'Single sign-on connected'}: ${row.issuer}, ${row.allowed_domains.join(', ')}${row.enabled ? '' : ' (disabled)'}`,
    });
    const unproven = unprove ? await unproveDomains(db, brand.id) : [];
    if (unproven.length > 0) {
      await insertActivity(db, {
        brandId: brand.id,
        action: 'brand.sso_domains_unproven',
        actorMemberId: actorMemberId(actor),
        actorEmail: actorEmail(actor),
        subjectId: brand.id,
        summary: `${providerChanged ? 'The identity provider changed without a fresh sign-in through the previous one' : 'Single sign-on was turned back on without a fresh sign-in through it'}: ${unproven.join(', ')} must be proven again, with new DNS records`,
      });
    }
    // Sessions the previous provider vouched for end: the re-check would otherwise send their
    // tokens to the new provider's endpoints, and they would act until it ran.
    const ended = providerChanged ? await endBrandSsoSessions(db, brand.id) : 0;
    if (ended > 0) {
      await insertActivity(db, {
        brandId: brand.id,
        action: 'member.session_ended',
        actorMemberId: actorMemberId(actor),
        actorEmail: actorEmail(actor),
        subjectId: brand.id,
        summary: `The identity provider changed: ${ended} single sign-on session${ended === 1 ? '' : 's'} it opened ended`,
      });
    }
    if (!existing || providerChanged || reenabled) {
      await insertOwnerMails(db, brand.id, 'sso_provider_set', {
        issuer: row.issuer,
        setBy: actorEmail(actor),
      });
    }
    return row;
  });
}

const changedMeanwhile = (brandName: string) =>
  new AppError(
    'precondition_failed',
    `${brandName}'s single sign-on connection was changed by someone else since this save began: reload it and save again.`,
  );

/**
 * Whether the actor may carry the brand's verified domains over to a new provider: an operator
 * (the admin token's own authority), or an owner whose session was opened by this brand's
 * current single sign-on within SSO_CHANGE_PROOF_MS. A mailbox alone (an emailed link) is not
 * enough, nor is a passkey: neither says the current provider agrees.
 */
async function provedFreshly(
  deps: SsoConnectionDeps,
  actor: Actor,
  input: { sessionToken: string },
  brandId: string,
): Promise<boolean> {
  if (actor.kind !== 'member') return true;
  const until = await freshSsoUntil(deps.pool, {
    sessionToken: input.sessionToken,
    email: actor.member.email,
    brandId,
    freshMs: deps.changeProofMs,
  });
  return until !== undefined;
}

/**
 * Removes the brand's connection, and with it its domains' proofs. Refused while the brand
 * requires SSO (sso_required), and without a fresh single sign-on while it is in use.
 */
export async function removeSsoConnection(
  deps: SsoConnectionDeps,
  actor: Actor,
  input: { brandId: string; sessionToken: string },
): Promise<void> {
  const brand = await authorized(deps.pool, actor, input.brandId);
  const existing = await selectSsoConnection(deps.pool, brand.id);
  if (existing && (await inUse(deps.pool, existing))) {
    await requireFreshSsoProof(deps.pool, actor, {
      sessionToken: input.sessionToken,
      brandId: brand.id,
      brandName: brand.name,
      freshMs: deps.changeProofMs,
    });
  }
  assertOwnersKeepAWayIn(brand, [], undefined);
  await withTransaction(deps.pool, async (db) => {
    await reauthorizeUnderBrand(db, actor, 'members.sso', brand.id, noBrand(brand.id));
    if (!(await deleteSsoConnection(db, brand.id))) {
      throw new AppError('not_found', `${brand.name} has no single sign-on connection.`);
    }
    await insertActivity(db, {
      brandId: brand.id,
      action: 'brand.sso_removed',
      actorMemberId: actorMemberId(actor),
      actorEmail: actorEmail(actor),
      subjectId: brand.id,
      summary: 'Single sign-on removed',
    });
  });
}
