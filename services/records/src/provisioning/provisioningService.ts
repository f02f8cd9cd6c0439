import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { actorEmail, actorMemberId, authorize, type Actor } from '@brand/shared/console';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { ROLES, type RoleName } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { refuseUnlessOneLine } from '@brand/shared/text';
import { selectBrand } from '../access/brandRepo';
import { currentActor } from '../access/currentActor';
import { brandId } from '../access/inputs';
import { reauthorizeUnderBrand } from '../access/reauthorizeUnderBrand';
import { changeDirectory, deriveUsers, type DirectoryDeps } from './directoryService';
import {
  deleteRoleMapping,
  lockProvisioningSettings,
  selectManagedMembers,
  selectProvisioningSettings,
  selectRoleMappings,
  selectScimRequests,
  selectDeprovisioned,
  selectScimUserIds,
  selectUnprovisioned,
  updateProvisioningSettings,
  upsertRoleMapping,
  type ProvisioningSettingsRow,
} from './provisioningRepo';
import { selectScimTokens } from './scimTokenRepo';

/** How many of the provider's requests the page shows. */
const SHOWN_REQUESTS = 50;
/** A brand maps at most this many groups. */
const MAX_MAPPINGS = 100;

const groupKey = z
  .string()
  .trim()
  .min(1, 'Name the group (its display name at the provider, or its id).')
  .max(256)
  // a group's display name, by the rules the directory keeps its groups' names to (text in
  // directoryService.ts), so a group named there can be mapped here and no other
  .superRefine(refuseUnlessOneLine((why) => `The group ${why}.`));
/**
 * A mapping to remove, named exactly as stored: removal identifies a row that exists, so the
 * rules of a new name (which a row saved before them may break: 10332c6) do not apply to it.
 */
const storedGroupKey = z.string().min(1).max(256);
const role = z.enum(ROLES.names, { message: `must be one of ${ROLES.names.join(', ')}` });
const Settings = z.object({
  jit_enabled: z.boolean(),
  jit_groups_claim: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_:./-]{1,100}$/, 'The groups claim is a claim name, such as groups.'),
  revoke_keys_on_deprovision: z.boolean(),
});

/** The brand, for an owner (members.provisioning) or an operator; another brand is not_found. */
async function ownersBrand(
  pool: Pool,
  actor: Actor,
  id: string,
): Promise<{ who: Actor; brandId: string }> {
  const v = parseOrThrow(z.object({ brandId }), { brandId: id });
  const noBrand = () => new AppError('not_found', `No brand ${v.brandId}.`);
  const who = await currentActor(pool, actor);
  authorize(who, 'members.provisioning', v.brandId, noBrand);
  if (!(await selectBrand(pool, v.brandId))) throw noBrand();
  return { who, brandId: v.brandId };
}

/**
 * The actor authorized again once the brand's row is locked (member changes lock it for update):
 * ownersBrand reads their standing before it, and a change queued behind their demotion or
 * removal went ahead on the authority they no longer had, just-in-time membership turned on or a
 * group mapped to owner (a review of races inside one brand, 2026-12-01; as key changes since
 * reauthorizeUnderBrand.ts).
 */
const ownerStillUnderLock = (db: PoolClient, actor: Actor, id: string): Promise<Actor> =>
  reauthorizeUnderBrand(
    db,
    actor,
    'members.provisioning',
    id,
    () => new AppError('not_found', `No brand ${id}.`),
  );

/** Everything the Provisioning page shows. */
export async function getProvisioning(pool: Pool, actor: Actor, input: { brandId: string }) {
  const { brandId: id } = await ownersBrand(pool, actor, input.brandId);
  const [settings, tokens, mappings, requests, managed, unprovisioned, deprovisioned] =
    await Promise.all([
      selectProvisioningSettings(pool, id),
      selectScimTokens(pool, id),
      selectRoleMappings(pool, id),
      selectScimRequests(pool, id, SHOWN_REQUESTS),
      selectManagedMembers(pool, id),
      selectUnprovisioned(pool, id),
      selectDeprovisioned(pool, id),
    ]);
  return { settings: settings!, tokens, mappings, requests, managed, unprovisioned, deprovisioned };
}

/**
 * Maps a group to a role (or removes the mapping: role undefined) and derives every SCIM user's
 * role again at once, the last owner kept (last_owner: nothing changes). Members who came just in
 * time take the new mapping at their next sign-in.
 */
export async function setRoleMapping(
  deps: DirectoryDeps,
  actor: Actor,
  input: { brandId: string; groupKey: string; role: RoleName | undefined; remove: boolean },
): Promise<void> {
  const { who: before, brandId: id } = await ownersBrand(deps.pool, actor, input.brandId);
  const key = parseOrThrow(input.remove ? storedGroupKey : groupKey, input.groupKey);
  const newRole = input.remove ? undefined : parseOrThrow(role, input.role);
  const label = `${actorEmail(before)} (role mapping)`;
  await changeDirectory(deps, { brandId: id, label }, async (db) => {
    const who = await ownerStillUnderLock(db, actor, id);
    if (newRole) {
      const count = (await selectRoleMappings(db, id)).length;
      if (count >= MAX_MAPPINGS) {
        throw new AppError('rate_limited', `At most ${MAX_MAPPINGS} group mappings per brand.`);
      }
      await upsertRoleMapping(db, id, key, newRole);
    } else if (!(await deleteRoleMapping(db, id, key))) {
      throw new AppError('not_found', `No mapping of ${key}.`);
    }
    await insertActivity(db, {
      brandId: id,
      action: newRole ? 'scim.role_mapping_set' : 'scim.role_mapping_removed',
      actorMemberId: actorMemberId(who),
      actorEmail: actorEmail(who),
      subjectId: id,
      summary: newRole
        ? `Group “${key}” maps to ${newRole}`
        : `Group “${key}” no longer maps to a role`,
    });
    return deriveUsers(db, { brandId: id, label }, await selectScimUserIds(db, id));
  });
}

/**
 * Just-in-time membership on or off, its groups claim, and revoking deprovisioned keys. The three
 * are written whole, so given `ifSettings` (the settings as the change was decided on: the console
 * reads them, keeps what the owner did not change, and sends the rest as read) they are written
 * only over those settings, compared under the brand's row lock at the write; settings changed
 * meanwhile are precondition_failed. The console's read and this write are two calls: a change
 * committing between them (another owner's, brandctl's, the API's) was turned back unseen,
 * "revoke the keys" turned off again (a review of lost updates, 2026-12-01). The settings are
 * columns of the brand's row, which has no updated_at (and many other writes, none of them a
 * reason to refuse this one): the settings themselves are the precondition.
 */
export async function setProvisioningSettings(
  pool: Pool,
  actor: Actor,
  input: {
    brandId: string;
    settings: ProvisioningSettingsRow;
    ifSettings?: ProvisioningSettingsRow;
  },
): Promise<ProvisioningSettingsRow> {
  const { brandId: id } = await ownersBrand(pool, actor, input.brandId);
  const s = parseOrThrow(Settings, input.settings);
  const read = input.ifSettings;
  await withTransaction(pool, async (db) => {
    const now = await lockProvisioningSettings(db, id);
    if (!now) throw new AppError('not_found', `No brand ${id}.`);
    const who = await ownerStillUnderLock(db, actor, id);
    if (
      read !== undefined &&
      (now.jit_enabled !== read.jit_enabled ||
        now.jit_groups_claim !== read.jit_groups_claim ||
        now.revoke_keys_on_deprovision !== read.revoke_keys_on_deprovision)
    ) {
      throw new AppError(
        'precondition_failed',
        'The provisioning settings were changed by someone else since this change was decided: reload them and save again.',
      );
    }
    await updateProvisioningSettings(db, id, s);
    await insertActivity(db, {
      brandId: id,
      action: 'scim.settings_changed',
      actorMemberId: actorMemberId(who),
      actorEmail: actorEmail(who),
      subjectId: id,
      summary: `Provisioning: just-in-time membership ${s.jit_enabled ? `on (groups from the “${s.jit_groups_claim}” claim)` : 'off'}; a deprovisioned person's API keys are ${s.revoke_keys_on_deprovision ? 'revoked' : 'kept for the owners to decide'}`,
    });
  });
  return (await selectProvisioningSettings(pool, id))!;
}
