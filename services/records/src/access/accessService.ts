import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { refuseUnlessOneLine } from '@brand/shared/text';
import { insertActivity } from '@brand/shared/activity';
import { authorize, type Actor } from '@brand/shared/console';
import { ROLES, TIERS, type RoleName, type TierName } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { withTransaction, type Pool } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';
import {
  generateApiKey,
  hashApiKey,
  isPermission,
  keyDisplayPrefix,
  type KeyEnvironment,
} from '@brand/shared/keys';
import type { Logger } from '@brand/shared/logger';
import {
  insertBrand,
  insertMember,
  selectBrand,
  selectBrands,
  selectMemberByEmail,
  updateBrand as updateBrandRow,
  type BrandRow,
  type MemberRow,
} from './brandRepo';
import {
  insertKey,
  markKeyRevoked,
  selectKey,
  selectKeyIdentity,
  selectKeys,
  touchKey,
  type KeyRow,
} from './keyRepo';
import { insertOrRestoreMember, lockBrandMembers } from './memberRepo';
import { refuseBeyondLiveKeys } from './keyLimit';
import { OPERATOR_SIGN_IN_POLICIES, POLICY_SUMMARIES } from '../signInPolicy/policy';
import { currentActor } from './currentActor';
import { recordedActor } from './recordedActor';
import { unmetKeyConditions } from './keyConditions';
import { networksInWords, refuseOpenKeyByPolicy, requestedNetworks } from './keyNetworkRules';
import { reauthorizeUnderBrand } from './reauthorizeUnderBrand';
import { namedOwner } from './recordedActor';
import { brandId, email, keyExpiresAt } from './inputs';
import type { RevocationNotifier } from './revocations';

export interface AccessDeps {
  pool: Pool;
  log: Logger;
  revocations: RevocationNotifier;
}

export interface KeyIdentity {
  keyId: string;
  brandId: string;
  tier: TierName;
  permissions: string[];
  /** RFC 3339; gateways refuse the key from this instant even while it is cached. */
  expiresAt: string | null;
  /** Canonical CIDRs the gateway admits the key from (issue 63); empty: any network. */
  allowedNetworks: string[];
}

/**
 * Resolves a presented key's hash to its identity. Every refusal is invalid_key; the
 * message says which case applies, which helps an integrator and tells an attacker
 * nothing they did not already have (they hold the key). The lookup is by hash through a
 * unique index, so its timing depends on the hash, which an attacker cannot steer toward
 * a stored one; the final comparison is constant-time anyway.
 */
export async function authenticateKey(
  deps: AccessDeps,
  keyHashHex: string,
  environment: KeyEnvironment,
): Promise<KeyIdentity> {
  if (!/^[0-9a-f]{64}$/.test(keyHashHex))
    throw new AppError('invalid_key', 'The API key is not valid.');
  const presented = Buffer.from(keyHashHex, 'hex');
  const row = await selectKeyIdentity(deps.pool, presented);
  if (!row || !timingSafeEqual(row.key_hash, presented)) {
    throw new AppError('invalid_key', 'The API key is not valid.');
  }
  if (row.revoked_at !== null) {
    throw new AppError(
      'invalid_key',
      'This API key has been revoked; create a new key in the Developers area.',
    );
  }
  // Exactly like a revoked key: from the instant of its expiry (a roll's overlap ending, or
  // an expiry given at creation) the key is refused and nothing can make it valid again.
  if (row.expired) {
    throw new AppError(
      'invalid_key',
      'This API key has expired; use the key that replaced it or create a new key in the Developers area.',
    );
  }
  if (row.environment !== environment) {
    throw new AppError(
      'invalid_key',
      `This is a ${row.environment} key; this deployment serves the ${environment} environment.`,
    );
  }
  touchKey(deps.pool, row.id).catch((err: unknown) =>
    deps.log.warn({ err }, 'could not record key use'),
  );
  return {
    keyId: row.id,
    brandId: row.brand_id,
    tier: row.tier,
    permissions: row.permissions,
    expiresAt: row.expires_at,
    allowedNetworks: row.allowed_networks,
  };
}

const CreateBrandInput = z.object({
  name: z.string().trim().min(1, 'is required').max(200).superRefine(refuseUnlessOneLine()),
  tier: z.enum(TIERS.names, { message: `must be one of ${TIERS.names.join(', ')}` }),
  verified: z.boolean(),
  ownerEmail: email,
});

export async function createBrand(
  deps: AccessDeps,
  input: z.input<typeof CreateBrandInput>,
): Promise<{ brand: BrandRow; owner: MemberRow }> {
  const v = parseOrThrow(CreateBrandInput, input);
  return withTransaction(deps.pool, async (client) => {
    const brand = await insertBrand(client, {
      id: newId('brand'),
      name: v.name,
      tier: v.tier,
      verified: v.verified,
    });
    const owner = await insertMember(client, {
      id: newId('member'),
      brandId: brand.id,
      email: v.ownerEmail,
      role: 'owner',
    });
    return { brand, owner };
  });
}

export function listBrands(deps: AccessDeps): Promise<BrandRow[]> {
  return selectBrands(deps.pool);
}

const UpdateBrandInput = z.object({
  brandId,
  tier: z.enum(TIERS.names).optional(),
  verified: z.boolean().optional(),
  // an operator lifts a policy; requiring SSO is the owner's, with its proofs
  // (signInPolicy/setBrandSignInPolicy.ts)
  signInPolicy: z
    .string()
    .pipe(
      z.enum(OPERATOR_SIGN_IN_POLICIES, {
        message:
          'must be "any" or "passkey_or_sso"; requiring single sign-on is a brand owner\'s act in the console',
      }),
    )
    .optional(),
  actorEmail: z.string().max(320).optional(),
});

/**
 * An operator changes a brand's tier or verification, or lifts its sign-in policy (the way
 * back in when the brand's identity provider is down and the brand requires it). A policy that
 * changes is recorded in the brand's activity, naming the operator.
 */
export async function updateBrand(
  deps: AccessDeps,
  input: z.input<typeof UpdateBrandInput>,
): Promise<BrandRow> {
  const v = parseOrThrow(UpdateBrandInput, input);
  const brand = await withTransaction(deps.pool, async (db) => {
    const updated = await updateBrandRow(db, v.brandId, {
      tier: v.tier,
      verified: v.verified,
      signInPolicy: v.signInPolicy,
    });
    if (!updated) return undefined;
    const { previous_sign_in_policy: previous, ...after } = updated;
    if (v.signInPolicy && previous !== v.signInPolicy) {
      await insertActivity(db, {
        brandId: v.brandId,
        action: 'brand.sign_in_policy_changed',
        actorMemberId: '',
        actorEmail: v.actorEmail || 'operator',
        subjectId: v.brandId,
        summary: `${POLICY_SUMMARIES[v.signInPolicy]} (set by an operator)`,
      });
    }
    return after;
  });
  if (!brand) throw new AppError('not_found', `No brand ${v.brandId}.`);
  return brand;
}

const AddMemberInput = z.object({
  brandId,
  email,
  role: z.enum(ROLES.names, { message: `must be one of ${ROLES.names.join(', ')}` }),
});

export async function addMember(
  deps: AccessDeps,
  input: z.input<typeof AddMemberInput>,
): Promise<MemberRow> {
  const v = parseOrThrow(AddMemberInput, input);
  await requireBrand(deps, v.brandId);
  // A member removed earlier comes back with the role given, as an invitation accepted or SCIM
  // brings them back (their row keeps its id); only a current member is already_exists.
  const member = await insertOrRestoreMember(deps.pool, {
    id: newId('member'),
    brandId: v.brandId,
    email: v.email,
    role: v.role,
  });
  if (!member) {
    throw new AppError('already_exists', `${v.email} is already a member of ${v.brandId}.`);
  }
  return member;
}

const CreateKeyInput = z.object({
  brandId,
  name: z
    .string()
    .trim()
    .min(1, 'is required (name the integration, e.g. "Warehouse sync")')
    .max(100)
    .superRefine(refuseUnlessOneLine()),
  environment: z.enum(['live', 'test'], { message: 'must be live or test' }),
  actorEmail: email,
  permissions: z
    .array(
      z
        .string()
        .refine(isPermission, 'unknown permission (campaigns:prepare and audit:read exist)'),
    )
    .max(5)
    .transform((p) => [...new Set(p)]),
  /** Empty or absent for a key that does not expire. */
  expiresAt: keyExpiresAt.optional(),
  /** Read by requestedNetworks (issue 63); empty or absent: any network. */
  allowedNetworks: z.array(z.string().max(200)).max(200).optional(),
});

const noBrand = (id: string) => () => new AppError('not_found', `No brand ${id}.`);

/**
 * Creates a key and returns its secret, the only time it exists outside the caller's
 * hands. The refusal names every unmet condition at once: an owner-level actor
 * (insufficient_permission), a Plus-or-above plan and a verified brand
 * (precondition_failed), and campaigns:prepare only on live keys. A member acting through
 * the console is the creator (actorEmail is theirs, whatever the request said); an operator
 * names the member.
 */
export async function createKey(
  deps: AccessDeps,
  actor: Actor,
  input: Omit<z.input<typeof CreateKeyInput>, 'actorEmail'> & { actorEmail: string },
): Promise<{ key: KeyRow; secret: string }> {
  const who = await currentActor(deps.pool, actor);
  if (who.kind === 'member') {
    authorize(who, 'keys.create', input.brandId, noBrand(input.brandId));
    input = { ...input, actorEmail: who.member.email };
  }
  const v = parseOrThrow(CreateKeyInput, input);
  const brand = await requireBrand(deps, v.brandId);
  const creator = await selectMemberByEmail(deps.pool, v.brandId, v.actorEmail);

  const unmet = unmetKeyConditions(brand, v.environment, v.permissions);
  const actorRole: RoleName | undefined = creator?.role;
  if (actorRole !== 'owner') {
    const named = creator
      ? `${v.actorEmail} is a brand ${actorRole}`
      : `${v.actorEmail} is not a member of this brand`;
    throw new AppError(
      'insufficient_permission',
      `Only a brand owner can create keys: ${[named, ...unmet].join('; ')}.`,
    );
  }
  if (unmet.length > 0) {
    throw new AppError('precondition_failed', `Cannot create the key: ${unmet.join('; ')}.`);
  }
  const networks = requestedNetworks(v.allowedNetworks ?? []);

  const secret = generateApiKey(v.environment);
  const key = await withTransaction(deps.pool, async (db) => {
    // The brand's row for update: creations and rolls count the live keys one at a time.
    // The policy as it is under it, which its change locks: read before, a key
    // created as the policy turned on had no networks (a hostile review, 2026-12-01).
    // The creator's standing too (reauthorizeUnderBrand): an owner's creation waiting behind
    // their removal or demotion is refused, not made on the authority they no longer have.
    await lockBrandMembers(db, v.brandId);
    const whoNow = await reauthorizeUnderBrand(
      db,
      actor,
      'keys.create',
      v.brandId,
      noBrand(v.brandId),
    );
    const creator = await namedOwner(
      db,
      v.brandId,
      whoNow.kind === 'member' ? whoNow.member.email : v.actorEmail,
      'create keys',
    );
    await refuseOpenKeyByPolicy(db, v.brandId, networks, 'create the key');
    await refuseBeyondLiveKeys(db, v.brandId, 'create the key');
    const row = await insertKey(db, {
      id: newId('apiKey'),
      brandId: v.brandId,
      name: v.name,
      environment: v.environment,
      prefix: keyDisplayPrefix(secret),
      keyHash: Buffer.from(hashApiKey(secret), 'hex'),
      permissions: v.permissions,
      createdBy: creator.id,
      expiresAt: v.expiresAt ?? null,
      allowedNetworks: networks,
    });
    await insertActivity(db, {
      brandId: row.brand_id,
      action: 'key.created',
      actorMemberId: creator.id,
      actorEmail: creator.email,
      subjectId: row.id,
      summary:
        `${row.name} (${row.prefix}, ${row.environment})` +
        (row.expires_at ? `, expires ${row.expires_at}` : '') +
        (networks.length > 0 ? `, works from ${networksInWords(networks)}` : ''),
    });
    return row;
  });
  deps.log.info(
    { key_id: key.id, brand_id: key.brand_id, environment: key.environment },
    'API key created',
  );
  return { key, secret };
}

export async function listKeys(
  deps: AccessDeps,
  actor: Actor,
  input: { brandId: string },
): Promise<KeyRow[]> {
  const v = parseOrThrow(z.object({ brandId }), input);
  authorize(await currentActor(deps.pool, actor), 'keys.read', v.brandId, noBrand(v.brandId));
  await requireBrand(deps, v.brandId);
  return selectKeys(deps.pool, v.brandId);
}

const RevokeKeyInput = z.object({
  keyId: z.string().regex(/^key_[A-Za-z0-9]{1,64}$/, 'must be a key id (key_...)'),
  actorEmail: z.union([email, z.literal('')]),
});

/**
 * Revokes a key for good (revoking twice keeps the first time) and announces it so every
 * gateway forgets the key at once. A member acting through the console must be an owner of
 * the key's brand (another brand's key is not_found) and is recorded as the revoker; an
 * operator may name an owner of the brand as the revoker (recordedActor).
 */
export async function revokeKey(
  deps: AccessDeps,
  actor: Actor,
  input: z.input<typeof RevokeKeyInput>,
): Promise<KeyRow> {
  const v = parseOrThrow(RevokeKeyInput, input);
  const noKey = () => new AppError('not_found', `No key ${v.keyId}.`);
  const key = await selectKey(deps.pool, v.keyId);
  if (!key) throw noKey();
  const who = await currentActor(deps.pool, actor);
  authorize(who, 'keys.revoke', key.brand_id, noKey);
  await recordedActor(deps.pool, who, key.brand_id, v.actorEmail, 'revoke keys');
  const revoked = await withTransaction(deps.pool, async (db) => {
    // Again under the brand's row (reauthorizeUnderBrand): a revocation waiting behind its
    // actor's removal is refused, and the activity names whom the brand had then.
    const whoNow = await reauthorizeUnderBrand(db, actor, 'keys.revoke', key.brand_id, noKey);
    const by = await recordedActor(db, whoNow, key.brand_id, v.actorEmail, 'revoke keys');
    const row = await markKeyRevoked(db, v.keyId, by.email);
    if (row?.newly_revoked) {
      await insertActivity(db, {
        brandId: key.brand_id,
        action: 'key.revoked',
        actorMemberId: by.memberId,
        actorEmail: by.email,
        subjectId: key.id,
        summary: `${key.name} (${key.prefix}, ${key.environment})`,
      });
    }
    return row;
  });
  if (!revoked) throw noKey();
  await deps.revocations.announce(revoked.key_hash.toString('hex'));
  if (revoked.newly_revoked) deps.log.info({ key_id: v.keyId }, 'API key revoked');
  return (await selectKey(deps.pool, v.keyId))!;
}

async function requireBrand(deps: AccessDeps, id: string): Promise<BrandRow> {
  const brand = await selectBrand(deps.pool, id);
  if (!brand) throw new AppError('not_found', `No brand ${id}.`);
  return brand;
}
