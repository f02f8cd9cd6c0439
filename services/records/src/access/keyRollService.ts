import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { authorize, type Actor } from '@brand/shared/console';
import { KEY_OVERLAP_SECONDS, KEY_OVERLAPS } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { withTransaction, type PoolClient } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';
import { generateApiKey, hashApiKey, keyDisplayPrefix } from '@brand/shared/keys';
import type { AccessDeps } from './accessService';
import { selectBrand } from './brandRepo';
import { currentActor } from './currentActor';
import { reauthorizeUnderBrand } from './reauthorizeUnderBrand';
import { refuseBeyondLiveKeys } from './keyLimit';
import { lockBrandMembers } from './memberRepo';
import { namedOwner, recordedActor } from './recordedActor';
import { email, keyExpiresAt, keyId } from './inputs';
import { unmetKeyConditions } from './keyConditions';
import { networksForRoll, refuseOpenKeyByPolicy } from './keyNetworkRules';
import {
  insertKey,
  lockKeyState,
  selectKey,
  setKeyExpiresAt,
  type KeyExpiry,
  type KeyRow,
  type KeyStateRow,
} from './keyRepo';

const keyLabel = (k: KeyRow): string => `${k.name} (${k.prefix}, ${k.environment})`;

/** A revoked or expired key stays so: it is neither rolled nor given another expiry. */
function refuseInactive(key: KeyRow, state: KeyStateRow): void {
  if (state.revoked) {
    throw new AppError('key_inactive', `Key ${key.id} is revoked; it can never be used again.`);
  }
  if (state.expired) {
    throw new AppError(
      'key_inactive',
      `Key ${key.id} expired at ${state.expires_at ?? '-'}; it can never be used again.`,
    );
  }
}

export const noKeyOf = (key: { id: string }) => () =>
  new AppError('not_found', `No key ${key.id}.`);

/** The key, once the actor may take `action` on it (another brand's key is not_found). */
export async function authorizedKey(
  deps: AccessDeps,
  actor: Actor,
  id: string,
  action: 'keys.roll' | 'keys.expire' | 'keys.networks',
): Promise<{ key: KeyRow; who: Actor }> {
  const noKey = () => new AppError('not_found', `No key ${id}.`);
  const key = await selectKey(deps.pool, id);
  if (!key) throw noKey();
  const who = await currentActor(deps.pool, actor);
  authorize(who, action, key.brand_id, noKey);
  return { key, who };
}

/** Locks the key; throws not_found if it vanished, key_inactive if revoked or expired. */
export async function lockActive(db: PoolClient, key: KeyRow): Promise<KeyStateRow> {
  const state = await lockKeyState(db, key.id);
  if (!state) throw new AppError('not_found', `No key ${key.id}.`);
  refuseInactive(key, state);
  return state;
}

const RollKeyInput = z.object({
  keyId,
  oldKeyExpiresIn: z.enum(KEY_OVERLAPS.names, {
    message: `must be one of ${KEY_OVERLAPS.names.join(', ')}`,
  }),
  actorEmail: z.union([email, z.literal('')]),
});

/**
 * Rolls a key (docs/contract.md#replacing-a-key done for the owner): one transaction creates the replacement with the
 * same name, environment and permissions (no expiry of its own) and gives the old key an
 * expiry `oldKeyExpiresIn` from now, by the database's clock; an earlier expiry the old key
 * already had stays. Then every gateway is told to forget the old key, so its next request
 * reads the expiry (each gateway checks it per request from then on). A member acting through
 * the console must be an owner and creates the new key; an operator names an owner.
 */
export async function rollKey(
  deps: AccessDeps,
  actor: Actor,
  input: z.input<typeof RollKeyInput>,
): Promise<{ key: KeyRow; secret: string; replaced: KeyRow }> {
  const v = parseOrThrow(RollKeyInput, input);
  const { key: old, who } = await authorizedKey(deps, actor, v.keyId, 'keys.roll');
  const creatorEmail = who.kind === 'member' ? who.member.email : v.actorEmail;
  await namedOwner(deps.pool, old.brand_id, creatorEmail, 'roll keys');
  const brand = await selectBrand(deps.pool, old.brand_id);
  const unmet = brand ? unmetKeyConditions(brand, old.environment, old.permissions) : [];
  if (unmet.length > 0) {
    throw new AppError('precondition_failed', `Cannot roll the key: ${unmet.join('; ')}.`);
  }
  const secret = generateApiKey(old.environment);
  const rolled = await withTransaction(deps.pool, async (db) => {
    // the brand's row for update: creations and rolls count the live keys one at a time
    await lockBrandMembers(db, old.brand_id);
    const whoNow = await reauthorizeUnderBrand(db, actor, 'keys.roll', old.brand_id, noKeyOf(old));
    const creator = await namedOwner(
      db,
      old.brand_id,
      whoNow.kind === 'member' ? whoNow.member.email : v.actorEmail,
      'roll keys',
    );
    const state = await lockActive(db, old);
    if (state.replaced_by !== null) {
      throw new AppError(
        'precondition_failed',
        `Key ${old.id} was already rolled; its replacement is ${state.replaced_by} (roll that one).`,
      );
    }
    // The replacement is a new key: it keeps the old one's networks as they are now, under the
    // lock (read before it, a change committing in between was lost: a hostile review,
    // 2026-11-29), read again by today's rules (a stored list was copied unchecked: a review of
    // 2026-11-30), and the policy holds for it, as it is under the brand's row (shared above:
    // a policy turning on meanwhile is waited for, a hostile review of 2026-12-01).
    const networks = networksForRoll(state.allowed_networks, old.name);
    await refuseOpenKeyByPolicy(
      db,
      old.brand_id,
      networks,
      `roll ${old.name} (give it allowed networks first)`,
    );
    // The old key works on through the overlap beside its replacement, so the limit counts
    // it, or rolling over and over would make live keys without end; ending it now adds none,
    // so a brand at its limit can still roll.
    if (v.oldKeyExpiresIn !== 'now') {
      await refuseBeyondLiveKeys(db, old.brand_id, `roll ${old.name} with the old key working on`);
    }
    const key = await insertKey(db, {
      id: newId('apiKey'),
      brandId: old.brand_id,
      name: old.name,
      environment: old.environment,
      prefix: keyDisplayPrefix(secret),
      keyHash: Buffer.from(hashApiKey(secret), 'hex'),
      permissions: old.permissions,
      createdBy: creator.id,
      allowedNetworks: networks,
    });
    const expiresAt = await setKeyExpiresAt(
      db,
      old.id,
      { inSeconds: KEY_OVERLAP_SECONDS[v.oldKeyExpiresIn] },
      key.id,
    );
    await insertActivity(db, {
      brandId: old.brand_id,
      action: 'key.rolled',
      actorMemberId: creator.id,
      actorEmail: creator.email,
      subjectId: old.id,
      summary: `${keyLabel(old)} replaced by ${key.prefix} (${key.id}); the old key expires ${expiresAt}`,
    });
    return { key, hash: state.key_hash };
  });
  await deps.revocations.announce(rolled.hash.toString('hex'));
  deps.log.info(
    { key_id: old.id, replaced_by: rolled.key.id, overlap: v.oldKeyExpiresIn },
    'API key rolled',
  );
  return { key: rolled.key, secret, replaced: (await selectKey(deps.pool, old.id))! };
}

const SetKeyExpiryInput = z
  .object({
    keyId,
    now: z.boolean(),
    expiresAt: keyExpiresAt,
    actorEmail: z.union([email, z.literal('')]),
  })
  .refine((v) => v.now !== (v.expiresAt !== undefined), {
    message: 'give exactly one of now and expires_at',
    path: ['expires_at'],
  });

/**
 * Gives a key an expiry or brings its expiry forward ("expire now" ends a roll's overlap
 * early). An expiry only ever moves earlier, so nothing can keep a key alive past the time
 * an owner once set; a revoked or expired key is key_inactive. Gateways are told to forget
 * the key, and check the new expiry on each request from then on.
 */
export async function setKeyExpiry(
  deps: AccessDeps,
  actor: Actor,
  input: z.input<typeof SetKeyExpiryInput>,
): Promise<KeyRow> {
  const v = parseOrThrow(SetKeyExpiryInput, input);
  const { key, who } = await authorizedKey(deps, actor, v.keyId, 'keys.expire');
  await recordedActor(deps.pool, who, key.brand_id, v.actorEmail, 'expire keys');
  const expiry: KeyExpiry = v.expiresAt === undefined ? { inSeconds: 0 } : { at: v.expiresAt };
  const hash = await withTransaction(deps.pool, async (db) => {
    const whoNow = await reauthorizeUnderBrand(
      db,
      actor,
      'keys.expire',
      key.brand_id,
      noKeyOf(key),
    );
    const by = await recordedActor(db, whoNow, key.brand_id, v.actorEmail, 'expire keys');
    const state = await lockActive(db, key);
    if (
      'at' in expiry &&
      state.expires_at &&
      Date.parse(expiry.at) > Date.parse(state.expires_at)
    ) {
      throw new AppError(
        'precondition_failed',
        `Key ${key.id} already expires at ${state.expires_at}; an expiry can only be moved earlier.`,
      );
    }
    const expiresAt = await setKeyExpiresAt(db, key.id, expiry);
    await insertActivity(db, {
      brandId: key.brand_id,
      action: v.now ? 'key.expired' : 'key.expiry_set',
      actorMemberId: by.memberId,
      actorEmail: by.email,
      subjectId: key.id,
      summary: `${keyLabel(key)} expires ${expiresAt}`,
    });
    return state.key_hash;
  });
  await deps.revocations.announce(hash.toString('hex'));
  deps.log.info({ key_id: key.id, now: v.now }, 'API key expiry set');
  return (await selectKey(deps.pool, key.id))!;
}
