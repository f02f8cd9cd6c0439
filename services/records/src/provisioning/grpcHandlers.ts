import type { ProvisioningServiceServer } from '@brand/proto/access/v1/provisioning';
import { ROLES } from '@brand/shared/enums';
import type { RpcBuilder } from '@brand/shared/grpc';
import {
  deleteGroup,
  deleteUser,
  listGroups,
  listUsers,
  pageGroups,
  pageUsers,
  writeGroup,
  writeUser,
  type DirectoryDeps,
} from './directoryService';
import { insertScimRequest } from './provisioningRepo';
import { getProvisioning, setProvisioningSettings, setRoleMapping } from './provisioningService';
import {
  authenticateScimToken,
  createScimToken,
  revokeScimToken,
  rotateScimToken,
} from './scimTokens';
import type { ScimRateLimit } from './scimRateLimit';
import { toScimGroup, toScimToken, toScimUser } from './toProto';
import { firstCharacters } from '@brand/shared/text';

/** A filter value, or none when the field is empty (proto3 strings cannot be absent). */
const given = (s: string): string | undefined => (s === '' ? undefined : s);

/**
 * The ProvisioningService: owners' provisioning (the member assertion decides, or the admin
 * token), and the directory the console's SCIM endpoint serves, each call carrying the
 * provider's bearer token, which alone selects the brand.
 */
export function provisioningHandlers(
  deps: DirectoryDeps,
  rpc: RpcBuilder,
  scimLimit: ScimRateLimit,
): ProvisioningServiceServer {
  const { pool } = deps;
  return {
    getProvisioning: rpc.developers('GetProvisioning', async (req, { actor }) => {
      const p = await getProvisioning(pool, actor, { brandId: req.brand_id });
      return {
        settings: p.settings,
        tokens: p.tokens.map(toScimToken),
        mappings: p.mappings.map((m) => ({ group_key: m.group_key, role: ROLES.toProto(m.role) })),
        requests: p.requests,
        managed: p.managed.map((m) => ({ ...m, role: ROLES.toProto(m.role) })),
        unprovisioned: p.unprovisioned,
        deprovisioned: p.deprovisioned,
      };
    }),

    createScimToken: rpc.developers('CreateScimToken', async (req, { actor }) => {
      const { token, secret } = await createScimToken(pool, actor, {
        brandId: req.brand_id,
        name: req.name,
      });
      return { token: toScimToken(token), secret };
    }),

    rotateScimToken: rpc.developers('RotateScimToken', async (req, { actor }) => {
      const r = await rotateScimToken(pool, actor, {
        tokenId: req.token_id,
        oldTokenExpiresIn: req.old_token_expires_in,
      });
      return { token: toScimToken(r.token), secret: r.secret, replaced: toScimToken(r.replaced) };
    }),

    revokeScimToken: rpc.developers('RevokeScimToken', async (req, { actor }) => ({
      token: toScimToken(await revokeScimToken(pool, actor, { tokenId: req.token_id })),
    })),

    setRoleMapping: rpc.developers('SetRoleMapping', async (req, { actor }) => {
      await setRoleMapping(deps, actor, {
        brandId: req.brand_id,
        groupKey: req.group_key,
        role: ROLES.fromProto(req.role),
        remove: false,
      });
      return {};
    }),

    removeRoleMapping: rpc.developers('RemoveRoleMapping', async (req, { actor }) => {
      await setRoleMapping(deps, actor, {
        brandId: req.brand_id,
        groupKey: req.group_key,
        role: undefined,
        remove: true,
      });
      return {};
    }),

    setProvisioningSettings: rpc.developers('SetProvisioningSettings', async (req, { actor }) => ({
      settings: await setProvisioningSettings(pool, actor, {
        brandId: req.brand_id,
        settings: req.settings ?? {
          jit_enabled: false,
          jit_groups_claim: 'groups',
          revoke_keys_on_deprovision: false,
        },
        ifSettings: req.if_settings,
      }),
    })),

    authenticateScimToken: rpc.console('AuthenticateScimToken', async (req) => {
      // Each SCIM request counts here, once: the console asks this first for every request; the
      // calls it then makes for the request authenticate the token again, uncounted.
      await scimLimit.take(req.scim_token);
      const caller = await authenticateScimToken(pool, req.scim_token);
      return { brand_id: caller.brandId, token_name: caller.tokenName };
    }),

    listScimUsers: rpc.console('ListScimUsers', async (req) => {
      const caller = await authenticateScimToken(pool, req.scim_token);
      const only = {
        id: given(req.id),
        userName: given(req.user_name),
        externalId: given(req.external_id),
      };
      // No start_index: a console from before paging, which pages the whole list itself.
      if (req.start_index === 0) {
        const users = await listUsers(pool, caller, only);
        return { users: users.map(toScimUser), total_results: users.length };
      }
      const page = { startIndex: req.start_index, count: req.count };
      const { users, total } = await pageUsers(pool, caller, only, page);
      return { users: users.map(toScimUser), total_results: total };
    }),

    writeScimUser: rpc.console('WriteScimUser', async (req) => {
      const caller = await authenticateScimToken(pool, req.scim_token);
      const u = req.user;
      const user = await writeUser(deps, caller, {
        id: u?.id ?? '',
        expectedVersion: req.expected_version,
        userName: u?.user_name ?? '',
        externalId: u?.external_id ?? '',
        displayName: u?.display_name ?? '',
        givenName: u?.given_name ?? '',
        familyName: u?.family_name ?? '',
        emails: u?.emails ?? [],
        active: u?.active ?? false,
      });
      return { user: toScimUser(user) };
    }),

    deleteScimUser: rpc.console('DeleteScimUser', async (req) => {
      await deleteUser(deps, await authenticateScimToken(pool, req.scim_token), {
        id: req.id,
        expectedVersion: req.expected_version,
      });
      return {};
    }),

    listScimGroups: rpc.console('ListScimGroups', async (req) => {
      const caller = await authenticateScimToken(pool, req.scim_token);
      const only = { id: given(req.id), displayName: given(req.display_name) };
      if (req.start_index === 0) {
        const groups = await listGroups(pool, caller, only);
        return { groups: groups.map(toScimGroup), total_results: groups.length };
      }
      const page = {
        startIndex: req.start_index,
        count: req.count,
        withoutMembers: req.without_members,
      };
      const { groups, total } = await pageGroups(pool, caller, only, page);
      return { groups: groups.map(toScimGroup), total_results: total };
    }),

    writeScimGroup: rpc.console('WriteScimGroup', async (req) => {
      const caller = await authenticateScimToken(pool, req.scim_token);
      const g = req.group;
      const group = await writeGroup(deps, caller, {
        id: g?.id ?? '',
        expectedVersion: req.expected_version,
        displayName: g?.display_name ?? '',
        externalId: g?.external_id ?? '',
        members: (g?.members ?? []).map((m) => m.value),
      });
      return { group: toScimGroup(group) };
    }),

    deleteScimGroup: rpc.console('DeleteScimGroup', async (req) => {
      await deleteGroup(deps, await authenticateScimToken(pool, req.scim_token), {
        id: req.id,
        expectedVersion: req.expected_version,
      });
      return {};
    }),

    logScimRequest: rpc.console('LogScimRequest', async (req) => {
      const caller = await authenticateScimToken(pool, req.scim_token);
      await insertScimRequest(pool, caller.brandId, {
        token_name: caller.tokenName,
        method: req.method.slice(0, 10),
        path: req.path.slice(0, 200),
        status: req.status,
        summary: firstCharacters(req.summary, 300),
      });
      return {};
    }),
  };
}
