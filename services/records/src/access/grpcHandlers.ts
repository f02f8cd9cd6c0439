import type { AccessServiceServer, ApiKey, Brand, Member } from '@brand/proto/access/v1';
import { ENVIRONMENTS, ROLES, TIERS } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import { notYet, type RpcBuilder } from '@brand/shared/grpc';
import {
  addMember,
  authenticateKey,
  createBrand,
  createKey,
  listBrands,
  listKeys,
  revokeKey,
  updateBrand,
  type AccessDeps,
} from './accessService';
import type { BrandRow, MemberRow } from './brandRepo';
import type { KeyRow } from './keyRepo';

const toBrand = (b: BrandRow): Brand => ({
  id: b.id,
  name: b.name,
  tier: TIERS.toProto(b.tier),
  verified: b.verified,
  created_at: b.created_at,
});

const toMember = (m: MemberRow): Member => ({
  id: m.id,
  brand_id: m.brand_id,
  email: m.email,
  role: ROLES.toProto(m.role),
  created_at: m.created_at,
});

const toApiKey = (k: KeyRow): ApiKey => ({
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
});

/**
 * The AccessService implementation. AuthenticateKey is the gateway's data-plane call
 * (internal credential); every other method is the Developers area (admin token).
 */
export function accessHandlers(deps: AccessDeps, rpc: RpcBuilder): AccessServiceServer {
  return {
    authenticateKey: rpc.internal('AuthenticateKey', async (req) => {
      const environment = ENVIRONMENTS.fromProto(req.environment);
      if (environment === undefined)
        throw new AppError('invalid_parameter', 'environment is required.');
      const identity = await authenticateKey(deps, req.key_hash, environment);
      return {
        key_id: identity.keyId,
        brand_id: identity.brandId,
        tier: TIERS.toProto(identity.tier),
        permissions: identity.permissions,
      };
    }),

    createBrand: rpc.admin('CreateBrand', async (req) => {
      const { brand, owner } = await createBrand(deps, {
        name: req.name,
        tier: TIERS.requireName(req.tier, 'tier'),
        verified: req.verified,
        ownerEmail: req.owner_email,
      });
      return { brand: toBrand(brand), owner: toMember(owner) };
    }),

    listBrands: rpc.admin('ListBrands', async () => ({
      brands: (await listBrands(deps)).map(toBrand),
    })),

    updateBrand: rpc.admin('UpdateBrand', async (req) => {
      const brand = await updateBrand(deps, {
        brandId: req.brand_id,
        tier: req.tier === undefined ? undefined : TIERS.requireName(req.tier, 'tier'),
        verified: req.verified,
      });
      return { brand: toBrand(brand) };
    }),

    addMember: rpc.admin('AddMember', async (req) => {
      const member = await addMember(deps, {
        brandId: req.brand_id,
        email: req.email,
        role: ROLES.requireName(req.role, 'role'),
      });
      return { member: toMember(member) };
    }),

    createKey: rpc.admin('CreateKey', async (req) => {
      const { key, secret } = await createKey(deps, {
        brandId: req.brand_id,
        name: req.name,
        environment: ENVIRONMENTS.requireName(req.environment, 'environment'),
        actorEmail: req.actor_email,
        permissions: req.permissions,
      });
      return { key: toApiKey(key), secret };
    }),

    listKeys: rpc.admin('ListKeys', async (req) => ({
      keys: (await listKeys(deps, { brandId: req.brand_id })).map(toApiKey),
    })),

    revokeKey: rpc.admin('RevokeKey', async (req) => ({
      key: toApiKey(await revokeKey(deps, { keyId: req.key_id, actorEmail: req.actor_email })),
    })),
    ...notYet(['listMembers', 'inviteMember', 'changeMemberRole', 'removeMember', 'listActivity']),
  };
}
