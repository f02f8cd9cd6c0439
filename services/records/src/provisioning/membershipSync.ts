import { insertActivity } from '@brand/shared/activity';
import type { PoolClient } from '@brand/shared/db';
import type { RoleName } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { authorityWords, endAuthorityBeyondRole, endMembership } from '../access/endMembership';
import { markKeyRevoked } from '../access/keyRepo';
import {
  countOwners,
  insertOrRestoreMember,
  selectCurrentMemberOf,
  updateMemberRole,
} from '../access/memberRepo';
import { endSessionsWithin } from '../sessions/sessionRepo';
import { selectVerifiedDomains } from '../sso/domains/ssoDomainRepo';
import {
  selectProvisioningSettings,
  selectRoleMappings,
  type RoleMappingRow,
} from './provisioningRepo';

/*
 * How a person from the brand's identity provider becomes, stays and stops being a member
 * (issue 61). One rule for SCIM and for just-in-time membership at a single sign-on: a person the
 * provider says is active, at one of the brand's verified domains, is a member; their role is the
 * highest role the brand's owners mapped to any of their groups (member when none is mapped);
 * anything else is no member. The brand always keeps an owner: a change that would leave it none
 * is refused (last_owner) and changes nothing.
 */

const RANK: Record<RoleName, number> = { member: 1, admin: 2, owner: 3 };

/**
 * The highest role mapped to any of the group keys (a group's display name or external id, or a
 * groups-claim value; compared without case), or member.
 */
export function roleFromGroups(
  keys: readonly string[],
  mappings: readonly RoleMappingRow[],
): RoleName {
  const wanted = new Set(keys.map((k) => k.toLowerCase()));
  let role: RoleName = 'member';
  for (const m of mappings) {
    if (wanted.has(m.group_key.toLowerCase()) && RANK[m.role] > RANK[role]) role = m.role;
  }
  return role;
}

/** Who the provider acted as, for the activity (a SCIM token's name, or just-in-time). */
export interface ProvisioningActor {
  label: string;
  managedBy: 'scim' | 'sso';
}

/** A key a deprovisioning revoked: the gateways are told after the transaction commits. */
export type RevokedKeyHash = Buffer;

/** What the person should be at the brand, given what the provider says of them. */
export interface ProvidedPerson {
  email: string;
  active: boolean;
  groupKeys: readonly string[];
}

const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1);

/**
 * Brings the address's membership of the brand in line with the provider, inside the caller's
 * transaction (which holds the brand's member lock): answers the member id it holds now (or
 * null), and the hashes of keys it revoked. last_owner when the change would leave the brand
 * without an owner.
 */
export async function applyProvidedPerson(
  db: PoolClient,
  brandId: string,
  person: ProvidedPerson,
  actor: ProvisioningActor,
): Promise<{ memberId: string | null; revokedKeys: RevokedKeyHash[] }> {
  const verified = await selectVerifiedDomains(db, brandId);
  const eligible = person.active && verified.includes(domainOf(person.email));
  const current = await selectCurrentMemberOf(db, brandId, person.email);
  if (!eligible) {
    if (!current) return { memberId: null, revokedKeys: [] };
    return { memberId: null, revokedKeys: await deprovision(db, brandId, current, actor) };
  }
  const role = roleFromGroups(person.groupKeys, await selectRoleMappings(db, brandId));
  if (!current) {
    const added = (await insertOrRestoreMember(db, {
      id: newId('member'),
      brandId,
      email: person.email,
      role,
    }))!;
    await setManagedBy(db, added.id, actor.managedBy);
    await record(
      db,
      brandId,
      added.id,
      'member.provisioned',
      `${person.email} provisioned as ${role} by ${actor.label}`,
      actor,
    );
    return { memberId: added.id, revokedKeys: [] };
  }
  if (current.role !== role) {
    if (current.role === 'owner') await requireAnotherOwner(db, brandId, person.email);
    await updateMemberRole(db, current.id, role);
    // The brand's single sign-on sessions speak for the old role's holder (as a change by hand).
    await endSessionsWithin(db, { email: person.email, ssoBrandId: brandId });
    const withAuthority = await endAuthorityBeyondRole(db, current, role);
    await record(
      db,
      brandId,
      current.id,
      'member.role_changed',
      `${person.email}: ${current.role} to ${role} (their groups at the identity provider, by ${actor.label})${authorityWords(withAuthority)}`,
      actor,
    );
  }
  await setManagedBy(db, current.id, actor.managedBy);
  return { memberId: current.id, revokedKeys: [] };
}

/**
 * Ends a membership the provider no longer vouches for: removed at once, the brand's single
 * sign-on sessions of the person ended (their other sessions lose the brand at the next request),
 * and the API keys they created revoked when the brand chose so; else listed in the activity,
 * still working, for the owners to roll or keep.
 */
async function deprovision(
  db: PoolClient,
  brandId: string,
  member: { id: string; email: string; role: RoleName },
  actor: ProvisioningActor,
): Promise<RevokedKeyHash[]> {
  if (member.role === 'owner') await requireAnotherOwner(db, brandId, member.email);
  const endedWith = await endMembership(db, { id: member.id, brandId, email: member.email });
  const { sessionsEnded: ended, invitationWithdrawn } = endedWith;
  const keys = await db.query<{ id: string; name: string; prefix: string }>(
    `select id, name, prefix from api_keys
      where created_by = $1 and revoked_at is null and (expires_at is null or expires_at > now())
      order by created_at, id`,
    [member.id],
  );
  const settings = await selectProvisioningSettings(db, brandId);
  const revoked: RevokedKeyHash[] = [];
  if (settings?.revoke_keys_on_deprovision) {
    for (const k of keys.rows) {
      const row = await markKeyRevoked(db, k.id, actor.label);
      if (row?.newly_revoked) revoked.push(row.key_hash);
    }
  }
  const names = keys.rows.map((k) => `${k.name} (${k.prefix})`).join(', ');
  const keysWords =
    keys.rows.length === 0
      ? 'they created no API key that still works'
      : settings?.revoke_keys_on_deprovision
        ? `the API keys they created were revoked: ${names}`
        : `the API keys they created keep working until an owner rolls or revokes them: ${names}`;
  await record(
    db,
    brandId,
    member.id,
    'member.deprovisioned',
    `${member.email} deprovisioned by ${actor.label}${ended > 0 ? `; ${ended} single sign-on session${ended === 1 ? '' : 's'} ended` : ''}${invitationWithdrawn ? '; their pending invitation withdrawn' : ''}${authorityWords(endedWith)}; ${keysWords}`,
    actor,
  );
  return revoked;
}

async function setManagedBy(db: PoolClient, memberId: string, by: 'scim' | 'sso'): Promise<void> {
  // SCIM outranks just-in-time: a member SCIM manages stays SCIM's when they sign in.
  await db.query(
    `update brand_members set managed_by = $2
      where id = $1 and (managed_by is distinct from 'scim' or $2 = 'scim')`,
    [memberId, by],
  );
}

async function requireAnotherOwner(db: PoolClient, brandId: string, email: string): Promise<void> {
  if ((await countOwners(db, brandId)) <= 1) {
    throw new AppError(
      'last_owner',
      `${email} is the brand's last owner: the identity provider's change would leave the brand without one. Map an owner group to another person first.`,
    );
  }
}

function record(
  db: PoolClient,
  brandId: string,
  memberId: string,
  action: string,
  summary: string,
  actor: ProvisioningActor,
): Promise<void> {
  return insertActivity(db, {
    brandId,
    action,
    actorMemberId: '',
    actorEmail: actor.label,
    subjectId: memberId,
    summary,
  });
}
