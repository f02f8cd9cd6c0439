import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { withTransaction, sqlState, SQLSTATE, type Pool, type PoolClient } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { emailAddress } from '@brand/shared/console';
import { refuseUnlessOneLine } from '@brand/shared/text';
import type { RevocationNotifier } from '../access/revocations';
import { lockBrandMembers } from '../access/memberRepo';
import { selectVerifiedDomains } from '../sso/domains/ssoDomainRepo';
import {
  countScimGroups,
  countScimUsers,
  deleteScimGroupRow,
  deleteScimUserRow,
  insertScimUser,
  lockScimGroup,
  lockScimUser,
  replaceGroupMembers,
  selectGroupsOfUsers,
  selectMembersOfGroups,
  selectScimGroups,
  selectScimUsers,
  selectUserIdsOfBrand,
  setScimUserMember,
  updateScimUser,
  upsertScimGroup,
  type ListWindow,
  type ScimGroupRow,
  type ScimUserFields,
  type ScimUserRow,
} from './directoryRepo';
import { applyProvidedPerson, type RevokedKeyHash } from './membershipSync';
import { selectRoleMappings } from './provisioningRepo';
import type { ScimCaller } from './scimTokens';

/*
 * The brand's directory as its identity provider pushes it over SCIM (issue 61): users and groups
 * stored as sent, and each user's membership derived from them (membershipSync.ts). Every write
 * runs under the brand's member lock, so the last-owner rule reads the owners after every other
 * change of the brand's members. The provider's token selects the brand; ids of another brand are
 * simply not found.
 */

export interface DirectoryDeps {
  pool: Pool;
  revocations: RevocationNotifier;
}

/**
 * A name or address the provider sends: one line by the rules of every name (@brand/shared/text),
 * since the console shows users and groups by them and a text-direction control would show one
 * reversed. The provider is told which rule (400 invalidValue, "displayName: must not ...").
 */
const text = (max: number) => z.string().max(max).superRefine(refuseUnlessOneLine());

/** The version a write expects the resource to be at; empty for none (a create, a bare PUT). */
const expectedVersion = z.string().regex(/^(\d{1,19})?$/, 'must be a version');

const UserInput = z.object({
  id: z.string().regex(/^(scu_[A-Za-z0-9]{1,64})?$/, 'must be a user id (scu_...)'),
  expectedVersion: expectedVersion.default(''),
  userName: text(256).trim().min(1, 'userName is required'),
  externalId: text(256),
  displayName: text(256),
  givenName: text(256),
  familyName: text(256),
  emails: z
    .array(z.object({ value: text(254), type: text(32), primary: z.boolean() }))
    .max(20, 'at most 20 emails'),
  active: z.boolean(),
});

const GroupInput = z.object({
  id: z.string().regex(/^(scg_[A-Za-z0-9]{1,64})?$/, 'must be a group id (scg_...)'),
  expectedVersion: expectedVersion.default(''),
  displayName: text(256).trim().min(1, 'displayName is required'),
  externalId: text(256),
  members: z
    .array(z.string().regex(/^scu_[A-Za-z0-9]{1,64}$/, 'each member must be a user id (scu_...)'))
    .max(20_000, 'at most 20,000 members'),
});

const noUser = (id: string) => new AppError('not_found', `No user ${id}.`);
const noGroup = (id: string) => new AppError('not_found', `No group ${id}.`);

/**
 * A write that names the version it read (the console's PATCH, or the provider's If-Match) is
 * refused once the resource moved on: the PATCH it came from was applied to a stale copy, and
 * writing it back would undo the change made meanwhile (a deprovisioning, a removal from a
 * group). The console answers it 412; the provider sends its request again.
 */
function checkVersion(
  kind: 'User' | 'Group',
  id: string,
  expected: string,
  current: { version: string },
): void {
  if (expected !== '' && expected !== current.version) {
    throw new AppError(
      'precondition_failed',
      `${kind} ${id} changed since it was read (version ${expected}, now ${current.version}): read it again and retry.`,
    );
  }
}

/** A user with the groups they belong to, as the provider reads it back. */
export interface ScimUserView extends ScimUserRow {
  groups: { id: string; display: string }[];
}

/** A group with its members, as the provider reads it back. */
export interface ScimGroupView extends ScimGroupRow {
  members: { value: string; display: string }[];
}

/**
 * The address a user's membership is for: the primary email, else the work one, else the first,
 * else the userName; it must be an email address.
 */
function addressOf(u: z.infer<typeof UserInput>): string {
  const pick =
    u.emails.find((e) => e.primary) ?? u.emails.find((e) => e.type === 'work') ?? u.emails[0];
  const parsed = emailAddress.safeParse(pick?.value ?? u.userName);
  if (!parsed.success) {
    throw new AppError(
      'validation_failed',
      'userName (or a primary email) must be an email address: members are people by their address.',
    );
  }
  return parsed.data;
}

/**
 * A page of a list, as SCIM asks for it: from the 1-based startIndex, at most count (0: none,
 * only the total). Bounded here whatever the console asks (at most 500, its chunks for a filter
 * it applies itself): a user is ~1.5 KB in gRPC with 256-character names, ~20 KB with every
 * field full of three-byte characters, so 500 stay within the console's 16 MiB.
 */
interface ListPage {
  startIndex: number;
  count: number;
}
const MAX_LIST_PAGE = 500;

const windowOf = (page: ListPage): ListWindow => ({
  offset: Math.max(page.startIndex, 1) - 1,
  limit: Math.min(Math.max(page.count, 0), MAX_LIST_PAGE),
});

export async function listUsers(
  pool: Pool,
  caller: ScimCaller,
  only: { id?: string; userName?: string; externalId?: string },
  window?: ListWindow,
): Promise<ScimUserView[]> {
  const users = await selectScimUsers(pool, caller.brandId, only, window);
  const groups = await selectGroupsOfUsers(
    pool,
    users.map((u) => u.id),
  );
  return users.map((u) => ({
    ...u,
    groups: (groups.get(u.id) ?? []).map((g) => ({ id: g.id, display: g.display })),
  }));
}

/**
 * One page of the brand's users (as listUsers orders them) and how many the list holds: what a
 * provider's import walks, a page a request, instead of the whole directory each time. The count
 * and the page are read apart: a write between them shows in the next page.
 */
export async function pageUsers(
  pool: Pool,
  caller: ScimCaller,
  only: { id?: string; userName?: string; externalId?: string },
  page: ListPage,
): Promise<{ users: ScimUserView[]; total: number }> {
  const window = windowOf(page);
  const [total, users] = await Promise.all([
    countScimUsers(pool, caller.brandId, only),
    window.limit === 0 ? [] : listUsers(pool, caller, only, window),
  ]);
  return { users, total };
}

export async function listGroups(
  pool: Pool,
  caller: ScimCaller,
  only: { id?: string; displayName?: string },
  window?: ListWindow,
  withoutMembers = false,
): Promise<ScimGroupView[]> {
  const groups = await selectScimGroups(pool, caller.brandId, only, window);
  const members = withoutMembers
    ? new Map<string, ScimGroupView['members']>()
    : await selectMembersOfGroups(
        pool,
        groups.map((g) => g.id),
      );
  return groups.map((g) => ({ ...g, members: members.get(g.id) ?? [] }));
}

/**
 * One page of the brand's groups and how many the list holds, as pageUsers; each without its
 * members when the provider does not want them (a list is never written back, unlike a read).
 */
export async function pageGroups(
  pool: Pool,
  caller: ScimCaller,
  only: { id?: string; displayName?: string },
  page: ListPage & { withoutMembers?: boolean },
): Promise<{ groups: ScimGroupView[]; total: number }> {
  const window = windowOf(page);
  const [total, groups] = await Promise.all([
    countScimGroups(pool, caller.brandId, only),
    window.limit === 0 ? [] : listGroups(pool, caller, only, window, page.withoutMembers),
  ]);
  return { groups, total };
}

/**
 * Creates (no id) or replaces a user, then derives its membership. A new address for a user
 * deprovisions the old one's membership first.
 */
export async function writeUser(
  deps: DirectoryDeps,
  caller: ScimCaller,
  input: z.input<typeof UserInput>,
): Promise<ScimUserView> {
  const v = parseOrThrow(UserInput, input);
  const fields: ScimUserFields = {
    userName: v.userName,
    externalId: v.externalId === '' ? null : v.externalId,
    displayName: v.displayName,
    givenName: v.givenName,
    familyName: v.familyName,
    email: addressOf(v),
    emails: v.emails,
    active: v.active,
  };
  const id = v.id === '' ? newId('scimUser') : v.id;
  await changeDirectory(deps, caller, async (db) => {
    const before = v.id === '' ? undefined : await lockScimUser(db, caller.brandId, v.id);
    if (v.id !== '' && !before) throw noUser(v.id);
    if (before) checkVersion('User', v.id, v.expectedVersion, before);
    const domain = fields.email.slice(fields.email.lastIndexOf('@') + 1);
    if (!(await selectVerifiedDomains(db, caller.brandId)).includes(domain)) {
      throw new AppError(
        'validation_failed',
        `${fields.email} is not at a domain this brand has verified for single sign-on: only addresses at its verified domains can be provisioned.`,
      );
    }
    const revoked: RevokedKeyHash[] = [];
    if (before && before.email !== fields.email) {
      revoked.push(...(await derive(db, caller, { ...before, active: false })).revokedKeys);
    }
    await uniquely(() =>
      before ? updateScimUser(db, id, fields) : insertScimUser(db, caller.brandId, id, fields),
    );
    const user = (await lockScimUser(db, caller.brandId, id))!;
    revoked.push(...(await derive(db, caller, user)).revokedKeys);
    return revoked;
  });
  // Read after the commit: a delete of the same user just after it answers 404, not a 500.
  const [saved] = await listUsers(deps.pool, caller, { id });
  if (!saved) throw noUser(id);
  return saved;
}

/** Deletes a user and deprovisions their membership. */
export async function deleteUser(
  deps: DirectoryDeps,
  caller: ScimCaller,
  input: { id: string; expectedVersion?: string },
): Promise<void> {
  const expected = parseOrThrow(expectedVersion, input.expectedVersion ?? '');
  await changeDirectory(deps, caller, async (db) => {
    const user = await lockScimUser(db, caller.brandId, input.id);
    if (!user) throw noUser(input.id);
    checkVersion('User', input.id, expected, user);
    const { revokedKeys } = await derive(db, caller, { ...user, active: false });
    await deleteScimUserRow(db, user.id);
    return revokedKeys;
  });
}

/** Creates (no id) or replaces a group and its members, then derives the roles that moved. */
export async function writeGroup(
  deps: DirectoryDeps,
  caller: ScimCaller,
  input: z.input<typeof GroupInput>,
): Promise<ScimGroupView> {
  const v = parseOrThrow(GroupInput, input);
  const id = v.id === '' ? newId('scimGroup') : v.id;
  const members = [...new Set(v.members)];
  await changeDirectory(deps, caller, async (db) => {
    // A new group's members all join it: deriving who moved derives them all.
    let renamedWithRole = false;
    if (v.id !== '') {
      const before = await lockScimGroup(db, caller.brandId, v.id);
      if (!before) throw noGroup(v.id);
      checkVersion('Group', v.id, v.expectedVersion, before);
      const renamed =
        before.display_name !== v.displayName || (before.external_id ?? '') !== v.externalId;
      renamedWithRole =
        renamed &&
        (await mapsARole(db, caller.brandId, [
          before.display_name,
          before.external_id ?? '',
          v.displayName,
          v.externalId,
        ]));
    }
    const known = await selectUserIdsOfBrand(db, caller.brandId, members);
    const unknown = members.find((m) => !known.has(m));
    if (unknown) {
      throw new AppError('validation_failed', `members: ${unknown} is not a user of this brand.`);
    }
    await uniquely(() =>
      upsertScimGroup(db, {
        id,
        brandId: caller.brandId,
        displayName: v.displayName,
        externalId: v.externalId === '' ? null : v.externalId,
      }),
    );
    // Mappings name groups: a group renamed from or to a name a mapping holds may move every
    // member's role; otherwise only those who joined or left it. Deriving all 20,000 members of
    // a large group for a PATCH that removed one outlasted the console's wait (2026-11-30).
    const moved = await replaceGroupMembers(db, id, members);
    return deriveUsers(db, caller, renamedWithRole ? [...new Set([...members, ...moved])] : moved);
  });
  const [saved] = await listGroups(deps.pool, caller, { id });
  if (!saved) throw noGroup(id);
  return saved;
}

/** Whether a role mapping of the brand names one of these group keys (names, external ids). */
async function mapsARole(db: PoolClient, brandId: string, keys: readonly string[]) {
  const wanted = new Set(keys.filter((k) => k !== '').map((k) => k.toLowerCase()));
  const mappings = await selectRoleMappings(db, brandId);
  return mappings.some((m) => wanted.has(m.group_key.toLowerCase()));
}

/** Deletes a group, then derives its former members' roles. */
export async function deleteGroup(
  deps: DirectoryDeps,
  caller: ScimCaller,
  input: { id: string; expectedVersion?: string },
): Promise<void> {
  const expected = parseOrThrow(expectedVersion, input.expectedVersion ?? '');
  await changeDirectory(deps, caller, async (db) => {
    const group = await lockScimGroup(db, caller.brandId, input.id);
    if (!group) throw noGroup(input.id);
    checkVersion('Group', input.id, expected, group);
    return deriveUsers(db, caller, await deleteScimGroupRow(db, input.id));
  });
}

/** Derives again the membership of each of these users (a group or mapping changed). */
export async function deriveUsers(
  db: PoolClient,
  caller: Pick<ScimCaller, 'brandId' | 'label'>,
  userIds: readonly string[],
): Promise<RevokedKeyHash[]> {
  const revoked: RevokedKeyHash[] = [];
  for (const userId of userIds) {
    const user = await lockScimUser(db, caller.brandId, userId);
    if (user) revoked.push(...(await derive(db, caller, user)).revokedKeys);
  }
  return revoked;
}

/** One user's membership from what the provider says of them now. */
async function derive(
  db: PoolClient,
  caller: Pick<ScimCaller, 'brandId' | 'label'>,
  user: ScimUserRow,
): Promise<{ revokedKeys: RevokedKeyHash[] }> {
  const groups = (await selectGroupsOfUsers(db, [user.id])).get(user.id) ?? [];
  const result = await applyProvidedPerson(
    db,
    caller.brandId,
    {
      email: user.email,
      active: user.active,
      groupKeys: groups.flatMap((g) => (g.externalId ? [g.display, g.externalId] : [g.display])),
    },
    { label: caller.label, managedBy: 'scim' },
  );
  await setScimUserMember(db, user.id, result.memberId);
  return { revokedKeys: result.revokedKeys };
}

/**
 * Runs a directory change under the brand's member lock, tells every gateway of the keys it
 * revoked once it committed, and reports a refusal for the last owner in the brand's activity
 * (the change itself rolled back).
 */
export async function changeDirectory(
  deps: DirectoryDeps,
  caller: Pick<ScimCaller, 'brandId' | 'label'>,
  change: (db: PoolClient) => Promise<RevokedKeyHash[]>,
): Promise<void> {
  let revoked: RevokedKeyHash[];
  try {
    revoked = await withTransaction(deps.pool, async (db) => {
      await lockBrandMembers(db, caller.brandId);
      return change(db);
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'last_owner') {
      await insertActivity(deps.pool, {
        brandId: caller.brandId,
        action: 'member.provisioning_refused',
        actorMemberId: '',
        actorEmail: caller.label,
        subjectId: caller.brandId,
        summary: `${caller.label}: refused, ${err.message}`,
      });
    }
    throw err;
  }
  for (const hash of revoked) await deps.revocations.announce(hash.toString('hex'));
}

/** A write that would give a second user the same userName, email or externalId. */
async function uniquely(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (sqlState(err) === SQLSTATE.uniqueViolation) {
      throw new AppError(
        'already_exists',
        'Another user or group of this brand already has this userName, email, externalId or displayName.',
      );
    }
    throw err;
  }
}
