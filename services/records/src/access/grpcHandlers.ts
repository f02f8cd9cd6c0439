import type { AccessServiceServer } from '@brand/proto/access/v1';
import { listActivity } from '@brand/shared/activity';
import { authorize } from '@brand/shared/console';
import { ENVIRONMENTS, KEY_OVERLAPS, ROLES, TIERS } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import type { RpcBuilder } from '@brand/shared/grpc';
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
import { currentActor } from './currentActor';
import { rollKey, setKeyExpiry } from './keyRollService';
import { setKeyNetworks, setKeyPolicy } from './keyNetworks';
import { selectKeyPolicy } from './keyNetworksRepo';
import { toInvitation } from '../invitations/toProto';
import { inviteMember } from '../invitations/invitationService';
import { changeMemberRole, listMembers, removeMember } from './memberService';
import { toApiKey, toBrand, toMember } from './toProto';
import { removeAddressPasskeys } from '../passkeys/passkeyRecovery';

/**
 * The AccessService implementation. AuthenticateKey is the gateway's data-plane call
 * (internal credential); brands are operators' (admin token); keys, members and activity
 * are the Developers area (the admin token, or the console acting for a member, whose
 * standing each service function checks against the permission table).
 */
export function accessHandlers(deps: AccessDeps, rpc: RpcBuilder): AccessServiceServer {
  return {
    authenticateKey: rpc.internal('AuthenticateKey', async (req) => {
      const environment = ENVIRONMENTS.fromProto(req.environment);
      if (environment === undefined)
        throw new AppError('invalid_parameter', 'environment is required.');
      const identity = await authenticateKey(deps, req.key_hash, environment);
      if (identity.allowedNetworks.length > 0 && !req.enforces_networks) {
        // a gateway of a release before networks (a rolling upgrade): it would admit the key
        // from any address, so the key waits until the caller is rolled (a review, 2026-11-30)
        throw new AppError(
          'service_unavailable',
          'This API key is bound to networks, and the gateway that received the request cannot check them yet: it is being updated. Try again in a minute.',
          { retryAfterSeconds: 30 },
        );
      }
      return {
        key_id: identity.keyId,
        brand_id: identity.brandId,
        tier: TIERS.toProto(identity.tier),
        permissions: identity.permissions,
        expires_at: identity.expiresAt ?? undefined,
        allowed_networks: identity.allowedNetworks,
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
        signInPolicy: req.sign_in_policy,
        actorEmail: req.actor_email,
      });
      return { brand: toBrand(brand) };
    }),

    removeAddressPasskeys: rpc.admin('RemoveAddressPasskeys', async (req) => ({
      removed: await removeAddressPasskeys(deps.pool, {
        email: req.email,
        actorEmail: req.actor_email,
      }),
    })),

    addMember: rpc.admin('AddMember', async (req) => {
      const member = await addMember(deps, {
        brandId: req.brand_id,
        email: req.email,
        role: ROLES.requireName(req.role, 'role'),
      });
      return { member: toMember(member) };
    }),

    createKey: rpc.developers('CreateKey', async (req, { actor }) => {
      const { key, secret } = await createKey(deps, actor, {
        brandId: req.brand_id,
        name: req.name,
        environment: ENVIRONMENTS.requireName(req.environment, 'environment'),
        actorEmail: req.actor_email,
        permissions: req.permissions,
        expiresAt: req.expires_at ?? '',
        allowedNetworks: req.allowed_networks,
      });
      return { key: toApiKey(key), secret };
    }),

    listKeys: rpc.developers('ListKeys', async (req, { actor }) => {
      const keys = (await listKeys(deps, actor, { brandId: req.brand_id })).map(toApiKey);
      return { keys, require_key_networks: (await selectKeyPolicy(deps.pool, req.brand_id))! };
    }),

    setKeyNetworks: rpc.developers('SetKeyNetworks', async (req, { actor }) => ({
      key: toApiKey(
        await setKeyNetworks(deps, actor, {
          keyId: req.key_id,
          networks: req.allowed_networks,
          actorEmail: req.actor_email,
          ifNetworks: req.if_allowed_networks?.allowed_networks,
        }),
      ),
    })),

    setKeyPolicy: rpc.developers('SetKeyPolicy', async (req, { actor }) => ({
      require_key_networks: await setKeyPolicy(deps, actor, {
        brandId: req.brand_id,
        requireKeyNetworks: req.require_key_networks,
        actorEmail: req.actor_email,
      }),
    })),

    revokeKey: rpc.developers('RevokeKey', async (req, { actor }) => ({
      key: toApiKey(
        await revokeKey(deps, actor, { keyId: req.key_id, actorEmail: req.actor_email }),
      ),
    })),

    rollKey: rpc.developers('RollKey', async (req, { actor }) => {
      const { key, secret, replaced } = await rollKey(deps, actor, {
        keyId: req.key_id,
        oldKeyExpiresIn: KEY_OVERLAPS.requireName(req.old_key_expires_in, 'old_key_expires_in'),
        actorEmail: req.actor_email,
      });
      return { key: toApiKey(key), secret, replaced: toApiKey(replaced) };
    }),

    setKeyExpiry: rpc.developers('SetKeyExpiry', async (req, { actor }) => ({
      key: toApiKey(
        await setKeyExpiry(deps, actor, {
          keyId: req.key_id,
          now: req.now,
          expiresAt: req.expires_at,
          actorEmail: req.actor_email,
        }),
      ),
    })),

    listMembers: rpc.developers('ListMembers', async (req, { actor }) => ({
      members: (await listMembers(deps.pool, actor, { brandId: req.brand_id })).map(toMember),
    })),

    inviteMember: rpc.developers('InviteMember', async (req, { actor }) => ({
      member: undefined,
      invitation: toInvitation(
        await inviteMember(deps.pool, actor, {
          brandId: req.brand_id,
          email: req.email,
          role: ROLES.fromProto(req.role),
        }),
      ),
    })),

    changeMemberRole: rpc.developers('ChangeMemberRole', async (req, { actor }) => ({
      member: toMember(
        await changeMemberRole(deps.pool, actor, {
          memberId: req.member_id,
          role: ROLES.fromProto(req.role),
        }),
      ),
    })),

    removeMember: rpc.developers('RemoveMember', async (req, { actor }) => ({
      member: toMember(await removeMember(deps.pool, actor, { memberId: req.member_id })),
    })),

    listActivity: rpc.developers('ListActivity', async (req, { actor }) => {
      const noBrand = () => new AppError('not_found', `No brand ${req.brand_id}.`);
      authorize(await currentActor(deps.pool, actor), 'activity.read', req.brand_id, noBrand);
      return listActivity(deps.pool, req);
    }),
  };
}
