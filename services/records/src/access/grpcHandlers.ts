import {
  type AccessServiceServer,
  type ApiKey,
  type Brand,
  type Member,
} from '@brand/proto/access/v1';
import { AppError } from '@brand/shared/errors';
import { unary } from '@brand/shared/grpc';
import type { ServerUnaryCall } from '@grpc/grpc-js';
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
import { environments, plans, roles } from './enums';
import type { KeyRow } from './keyRepo';

export interface AccessHandlerDeps extends AccessDeps {
  requireInternalToken: (call: ServerUnaryCall<unknown, unknown>) => void;
}

const toBrand = (b: BrandRow): Brand => ({
  id: b.id,
  name: b.name,
  plan: plans.toProto(b.plan),
  verified: b.verified,
  created_at: b.created_at,
});

const toMember = (m: MemberRow): Member => ({
  id: m.id,
  brand_id: m.brand_id,
  email: m.email,
  role: roles.toProto(m.role),
  created_at: m.created_at,
});

const toApiKey = (k: KeyRow): ApiKey => ({
  id: k.id,
  brand_id: k.brand_id,
  name: k.name,
  environment: environments.toProto(k.environment),
  prefix: k.prefix,
  permissions: k.permissions,
  created_at: k.created_at,
  created_by: k.created_by,
  last_used_at: k.last_used_at ?? undefined,
  revoked_at: k.revoked_at ?? undefined,
});

/** An enum value the caller must set: UNSPECIFIED and unknown numbers are refused by name. */
function required<T>(value: T | undefined, field: string, allowed: string): T {
  if (value === undefined) {
    throw new AppError('validation_failed', `${field}: must be one of ${allowed}`, {
      details: [{ field, message: `must be one of ${allowed}` }],
    });
  }
  return value;
}

/**
 * The AccessService implementation. AuthenticateKey is the gateway's data-plane call;
 * every other method is admin and checks the internal token first.
 */
export function accessHandlers(deps: AccessHandlerDeps): AccessServiceServer {
  const admin = <Req, Res>(method: string, fn: (req: Req) => Promise<Res>) =>
    unary<Req, Res>(deps.log, method, async (req, { call }) => {
      deps.requireInternalToken(call);
      return fn(req);
    });

  return {
    authenticateKey: unary(deps.log, 'AuthenticateKey', async (req) => {
      const environment = environments.fromProto(req.environment);
      if (environment === undefined)
        throw new AppError('invalid_parameter', 'environment is required.');
      const identity = await authenticateKey(deps, req.key_hash, environment);
      return {
        key_id: identity.keyId,
        brand_id: identity.brandId,
        plan: plans.toProto(identity.plan),
        permissions: identity.permissions,
      };
    }),

    createBrand: admin('CreateBrand', async (req) => {
      const { brand, owner } = await createBrand(deps, {
        name: req.name,
        plan: required(plans.fromProto(req.plan), 'plan', 'free, plus, pro, enterprise'),
        verified: req.verified,
        ownerEmail: req.owner_email,
      });
      return { brand: toBrand(brand), owner: toMember(owner) };
    }),

    listBrands: admin('ListBrands', async () => ({
      brands: (await listBrands(deps)).map(toBrand),
    })),

    updateBrand: admin('UpdateBrand', async (req) => {
      const plan =
        req.plan === undefined
          ? undefined
          : required(plans.fromProto(req.plan), 'plan', 'free, plus, pro, enterprise');
      const brand = await updateBrand(deps, {
        brandId: req.brand_id,
        plan,
        verified: req.verified,
      });
      return { brand: toBrand(brand) };
    }),

    addMember: admin('AddMember', async (req) => {
      const member = await addMember(deps, {
        brandId: req.brand_id,
        email: req.email,
        role: required(roles.fromProto(req.role), 'role', 'owner, admin, member'),
      });
      return { member: toMember(member) };
    }),

    createKey: admin('CreateKey', async (req) => {
      const environment = required(
        environments.fromProto(req.environment),
        'environment',
        'live, test',
      );
      const { key, secret } = await createKey(deps, {
        brandId: req.brand_id,
        name: req.name,
        environment,
        actorEmail: req.actor_email,
        permissions: req.permissions,
      });
      return { key: toApiKey(key), secret };
    }),

    listKeys: admin('ListKeys', async (req) => ({
      keys: (await listKeys(deps, { brandId: req.brand_id })).map(toApiKey),
    })),

    revokeKey: admin('RevokeKey', async (req) => ({
      key: toApiKey(await revokeKey(deps, { keyId: req.key_id, actorEmail: req.actor_email })),
    })),
  };
}
