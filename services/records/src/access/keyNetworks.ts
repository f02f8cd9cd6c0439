import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { authorize, type Actor } from '@brand/shared/console';
import { withTransaction } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import type { AccessDeps } from './accessService';
import { currentActor } from './currentActor';
import { brandId, email, keyId } from './inputs';
import { networksInWords, refuseOpenKeyByPolicy, requestedNetworks } from './keyNetworkRules';
import { updateKeyNetworks, updateKeyPolicy } from './keyNetworksRepo';
import { lockBrandMembers } from './memberRepo';
import { selectKey, type KeyRow } from './keyRepo';
import { recordedActor } from './recordedActor';
import { reauthorizeUnderBrand } from './reauthorizeUnderBrand';
import { authorizedKey, lockActive, noKeyOf } from './keyRollService';

/**
 * Keys bound to networks and the brand's key policy (issue 63; docs/console.md "Keys bound
 * to networks"). The gateway enforces the networks from the identity it caches
 * (AuthenticateKey returns them); records keeps them, checks every list once, and tells the
 * gateways to forget a key whose networks changed.
 */

const networkList = z.array(z.string().max(200)).max(200);

const SetKeyNetworksInput = z.object({
  keyId,
  networks: networkList,
  actorEmail: z.union([email, z.literal('')]),
  ifNetworks: networkList.optional(),
});

/**
 * Replaces a key's allowed networks (owners): read and checked by readNetworks, refused while
 * the brand's policy requires networks and the list is empty, refused for a revoked or expired
 * key (key_inactive). Recorded as key.networks_set; every gateway forgets the key at once, so
 * its next request is checked against the new list.
 *
 * Given `ifNetworks` (the list as the change was decided on: the console reads the key, then
 * compares the owner's list with it and with what the page showed), the list is written only
 * over that list, compared under the key's row lock at the write; one changed meanwhile is
 * precondition_failed. The console's read and this write are two calls: a change committing
 * between them (another owner's, brandctl's, the API's) was replaced unseen, a removed network
 * put back (a review of lost updates, 2026-12-01). A key has no updated_at (and its last_used_at
 * moves with its requests): the list itself is the precondition.
 */
export async function setKeyNetworks(
  deps: AccessDeps,
  actor: Actor,
  input: z.input<typeof SetKeyNetworksInput>,
): Promise<KeyRow> {
  const v = parseOrThrow(SetKeyNetworksInput, input);
  const { key, who } = await authorizedKey(deps, actor, v.keyId, 'keys.networks');
  await recordedActor(deps.pool, who, key.brand_id, v.actorEmail, 'set key networks');
  const read = v.ifNetworks;
  const changedSince = (now: readonly string[]) =>
    read !== undefined && (now.length !== read.length || now.some((n, i) => n !== read[i]));
  if (changedSince(key.allowed_networks)) throw networksChangedMeanwhile(key);
  const networks = requestedNetworks(v.networks);
  const hash = await withTransaction(deps.pool, async (db) => {
    // The policy as it is under the brand's row (its change locks it): a list emptied as the
    // policy turned on was stored open (a hostile review, 2026-12-01).
    // and the actor's standing again there (reauthorizeUnderBrand: a change waiting behind their
    // removal or demotion is refused).
    const whoNow = await reauthorizeUnderBrand(
      db,
      actor,
      'keys.networks',
      key.brand_id,
      noKeyOf(key),
    );
    const by = await recordedActor(db, whoNow, key.brand_id, v.actorEmail, 'set key networks');
    const state = await lockActive(db, key);
    if (changedSince(state.allowed_networks)) throw networksChangedMeanwhile(key);
    await refuseOpenKeyByPolicy(
      db,
      key.brand_id,
      networks,
      `leave ${key.name} open to any network`,
    );
    await updateKeyNetworks(db, key.id, networks);
    await insertActivity(db, {
      brandId: key.brand_id,
      action: 'key.networks_set',
      actorMemberId: by.memberId,
      actorEmail: by.email,
      subjectId: key.id,
      summary: `${key.name} (${key.prefix}, ${key.environment}) works from ${networksInWords(networks)}`,
    });
    return state.key_hash;
  });
  await deps.revocations.announce(hash.toString('hex'));
  deps.log.info({ key_id: key.id, networks: networks.length }, 'API key networks set');
  return (await selectKey(deps.pool, key.id))!;
}

const networksChangedMeanwhile = (key: KeyRow) =>
  new AppError(
    'precondition_failed',
    `The allowed networks of ${key.name} (${key.prefix}) were changed by someone else since this change was decided: reload them and save again.`,
  );

const SetKeyPolicyInput = z.object({
  brandId,
  requireKeyNetworks: z.boolean(),
  actorEmail: z.union([email, z.literal('')]),
});

/**
 * Sets the brand's key policy (owners). It applies to keys created or rolled from now on;
 * keys without networks keep working, and the keys page lists them. A change is recorded as
 * brand.key_policy_changed, with how many active keys have no networks.
 */
export async function setKeyPolicy(
  deps: AccessDeps,
  actor: Actor,
  input: z.input<typeof SetKeyPolicyInput>,
): Promise<boolean> {
  const v = parseOrThrow(SetKeyPolicyInput, input);
  const who = await currentActor(deps.pool, actor);
  authorize(
    who,
    'keys.policy',
    v.brandId,
    () => new AppError('not_found', `No brand ${v.brandId}.`),
  );
  await recordedActor(deps.pool, who, v.brandId, v.actorEmail, 'set the key policy');
  await withTransaction(deps.pool, async (db) => {
    // The brand's row first, then the actor's standing under it: a policy change waiting
    // behind its actor's removal or demotion is refused (a hostile review, 2026-12-01).
    await lockBrandMembers(db, v.brandId);
    const whoNow = await currentActor(db, actor);
    authorize(
      whoNow,
      'keys.policy',
      v.brandId,
      () => new AppError('not_found', `No brand ${v.brandId}.`),
    );
    const by = await recordedActor(db, whoNow, v.brandId, v.actorEmail, 'set the key policy');
    const changed = await updateKeyPolicy(db, v.brandId, v.requireKeyNetworks);
    if (!changed) throw new AppError('not_found', `No brand ${v.brandId}.`);
    if (changed.previous === v.requireKeyNetworks) return;
    const open = changed.open_keys;
    await insertActivity(db, {
      brandId: v.brandId,
      action: 'brand.key_policy_changed',
      actorMemberId: by.memberId,
      actorEmail: by.email,
      subjectId: v.brandId,
      summary: v.requireKeyNetworks
        ? `every new key must have allowed networks (${open} active ${open === 1 ? 'key has' : 'keys have'} none)`
        : 'new keys may work from any network',
    });
  });
  return v.requireKeyNetworks;
}
