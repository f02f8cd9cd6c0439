import type { ApiKey, Brand, Member } from '@brand/proto/access/v1';
import { ENVIRONMENTS, ROLES, TIERS } from '@brand/shared/enums';
import type { BrandRow, MemberRow } from './brandRepo';
import type { KeyRow } from './keyRepo';

export const toBrand = (b: BrandRow): Brand => ({
  id: b.id,
  name: b.name,
  tier: TIERS.toProto(b.tier),
  verified: b.verified,
  created_at: b.created_at,
  sign_in_policy: b.sign_in_policy,
});

export const toMember = (m: MemberRow): Member => ({
  id: m.id,
  brand_id: m.brand_id,
  email: m.email,
  role: ROLES.toProto(m.role),
  created_at: m.created_at,
  last_signed_in_at: undefined,
  last_sign_in_method: '',
  last_used_at: m.last_used_at ?? undefined,
  last_used_method: m.last_used_method ?? '',
  managed_by: m.managed_by ?? '',
});

export const toApiKey = (k: KeyRow): ApiKey => ({
  id: k.id,
  brand_id: k.brand_id,
  name: k.name,
  environment: ENVIRONMENTS.toProto(k.environment),
  prefix: k.prefix,
  permissions: k.permissions,
  created_at: k.created_at,
  created_by: k.created_by,
  last_used_at: k.last_used_at ?? undefined,
  revoked_at: k.revoked_at ?? undefined,
  expires_at: k.expires_at ?? undefined,
  replaced_by: k.replaced_by ?? undefined,
  allowed_networks: k.allowed_networks,
});
