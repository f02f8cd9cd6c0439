import type { PoolClient } from '@brand/shared/db';
import { lockBrandMembers } from '../access/memberRepo';
import { applyProvidedPerson, type RevokedKeyHash } from './membershipSync';
import { selectProvisioningSettings } from './provisioningRepo';

/** Groups a claim may carry at most: a provider's claim beyond it is cut (and logged by no one). */
const MAX_GROUPS = 500;

/**
 * The groups an ID token's claim names: a list of strings (Okta, Entra ID's object ids), or one
 * string; anything else, none.
 */
export function groupsOfClaim(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return list
    .filter((g): g is string => typeof g === 'string' && g.length <= 256)
    .slice(0, MAX_GROUPS);
}

/**
 * Just-in-time membership at a single sign-on (issue 61), inside the sign-in's transaction: with
 * the brand's setting on, an address the provider vouched for at a verified domain (checked by
 * the sign-in already) becomes a member with the role its groups map to, and a member who came
 * this way follows the claim at each sign-in (a member SCIM manages, or one an owner invited, is
 * left as they are; one who was removed is not brought back). last_owner when the claim would demote the brand's last owner (the sign-in
 * is then refused, and nothing changes).
 */
export async function applyJustInTime(
  db: PoolClient,
  q: { brandId: string; email: string; claims: Record<string, unknown> },
): Promise<RevokedKeyHash[]> {
  const settings = await selectProvisioningSettings(db, q.brandId);
  if (!settings?.jit_enabled) return [];
  // The brand's member lock before the member is read: a removal committing in between would
  // otherwise be undone by what follows (a hostile review, 2026-11-29).
  await lockBrandMembers(db, q.brandId);
  const member = await db.query<{ managed_by: string | null; removed: boolean }>(
    `select managed_by, removed_at is not null as removed from brand_members
      where brand_id = $1 and email = $2`,
    [q.brandId, q.email],
  );
  const existing = member.rows[0];
  // A member removed stays removed, however they first came: the provider vouching at sign-in
  // does not undo an owner's act (a hostile review, 2026-11-29, found it did). An invitation
  // they accept, or the provider's SCIM, brings them back.
  if (existing && (existing.removed || existing.managed_by !== 'sso')) return [];
  const { revokedKeys } = await applyProvidedPerson(
    db,
    q.brandId,
    { email: q.email, active: true, groupKeys: groupsOfClaim(q.claims[settings.jit_groups_claim]) },
    { label: 'the identity provider (just in time)', managedBy: 'sso' },
  );
  return revokedKeys;
}
