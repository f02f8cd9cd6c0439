import { Option, type Command } from 'commander';
import type { ProvisioningSettings } from '@brand/proto/access/v1/provisioning';
import { ROLES, type RoleName } from '@brand/shared/enums';
import { isAppError } from '@brand/shared/errors';
import type { Backend } from '../client';
import { formatFields, formatTable, shortTime } from '../output';
import { defineCommand, defineGroup, runCommand } from '../run';
import { SECRET_WARNING, secretBlock } from '../views';

const ON_OFF = ['on', 'off'] as const;

/** brandctl provisioning show | token create | token rotate | token revoke | map | unmap | settings. */
export function registerProvisioningCommands(program: Command): void {
  const prov = defineGroup(
    program,
    'provisioning',
    "A brand's people from its identity provider: SCIM tokens, groups mapped to roles, just-in-time membership.",
    [
      'brandctl provisioning show br_123',
      'brandctl provisioning token create br_123 --name Okta',
      'brandctl provisioning map br_123 --group "Brand Admins" --role admin',
      'brandctl provisioning settings br_123 --jit on --groups-claim groups',
    ],
  );

  defineCommand(prov, 'show <brandId>', 'Show tokens, mappings, settings and managed members.', [
    'brandctl provisioning show br_123',
  ]).action((brandId: string, _opts: unknown, cmd: Command) =>
    runCommand(cmd, async ({ backend }) => {
      const p = await backend.provisioning('getProvisioning', { brand_id: brandId });
      const role = (r: number) => ROLES.fromProto(r) ?? 'member';
      return {
        json: {
          settings: p.settings,
          tokens: p.tokens,
          mappings: p.mappings.map((m) => ({ group: m.group_key, role: role(m.role) })),
          managed: p.managed.map((m) => ({ ...m, role: role(m.role) })),
          unprovisioned: p.unprovisioned,
          requests: p.requests,
        },
        human: [
          formatFields([
            [
              'just in time',
              p.settings?.jit_enabled ? `on (claim ${p.settings.jit_groups_claim})` : 'off',
            ],
            ['revoke keys on deprovision', p.settings?.revoke_keys_on_deprovision ? 'on' : 'off'],
          ]),
          '',
          'SCIM tokens',
          formatTable(
            ['id', 'name', 'prefix', 'created', 'last used', 'ends'],
            p.tokens.map((t) => [
              t.id,
              t.name,
              t.prefix,
              shortTime(t.created_at),
              shortTime(t.last_used_at) || 'never',
              t.revoked_at ? `revoked ${shortTime(t.revoked_at)}` : shortTime(t.expires_at) || '-',
            ]),
          ),
          '',
          'Groups mapped to roles',
          formatTable(
            ['group', 'role'],
            p.mappings.map((m) => [m.group_key, role(m.role)]),
          ),
          '',
          'Members the provider manages',
          formatTable(
            ['email', 'role', 'by', 'groups'],
            p.managed.map((m) => [m.email, role(m.role), m.managed_by, m.groups.join(', ')]),
          ),
        ].join('\n'),
      };
    }),
  );

  const token = prov.command('token').description('Create, rotate and revoke SCIM tokens.');
  defineCommand(token, 'create <brandId>', 'Create a SCIM token; its secret is printed once.', [
    'brandctl provisioning token create br_123 --name Okta',
  ])
    .requiredOption('--name <name>', 'the provider it is for, e.g. Okta')
    .action((brandId: string, opts: { name: string }, cmd: Command) =>
      runCommand(cmd, async ({ backend, json, notice }) => {
        const r = await backend.provisioning('createScimToken', {
          brand_id: brandId,
          name: opts.name,
        });
        if (json) notice(`warning: ${SECRET_WARNING.replace(/\n/g, ' ')}`);
        return {
          json: { token: r.token, secret: r.secret },
          human: `SCIM token created.\n\n${secretBlock(r.secret)}`,
        };
      }),
    );
  defineCommand(
    token,
    'rotate <tokenId>',
    'Replace a SCIM token; the old one works for an overlap.',
    ['brandctl provisioning token rotate sct_123 --old-expires-in 24h'],
  )
    .addOption(
      new Option('--old-expires-in <overlap>', 'how long the old token keeps working')
        .choices(['now', '1h', '24h', '7d'])
        .default('24h'),
    )
    .action((tokenId: string, opts: { oldExpiresIn: string }, cmd: Command) =>
      runCommand(cmd, async ({ backend, json, notice }) => {
        const r = await backend.provisioning('rotateScimToken', {
          token_id: tokenId,
          old_token_expires_in: opts.oldExpiresIn,
        });
        if (json) notice(`warning: ${SECRET_WARNING.replace(/\n/g, ' ')}`);
        return {
          json: { token: r.token, secret: r.secret, replaced: r.replaced },
          human: `SCIM token rotated; the old one ends ${shortTime(r.replaced?.expires_at) || 'now'}.\n\n${secretBlock(r.secret)}`,
        };
      }),
    );
  defineCommand(token, 'revoke <tokenId>', 'End a SCIM token at once.', [
    'brandctl provisioning token revoke sct_123',
  ]).action((tokenId: string, _opts: unknown, cmd: Command) =>
    runCommand(cmd, async ({ backend }) => {
      const r = await backend.provisioning('revokeScimToken', { token_id: tokenId });
      return { json: { token: r.token }, human: `SCIM token ${tokenId} revoked.` };
    }),
  );

  defineCommand(prov, 'map <brandId>', 'Map a provider group to a role (applied at once).', [
    'brandctl provisioning map br_123 --group "Brand Admins" --role admin',
  ])
    .requiredOption('--group <group>', "the group's name or id at the provider")
    .addOption(new Option('--role <role>', 'the role').choices(ROLES.names).makeOptionMandatory())
    .action((brandId: string, opts: { group: string; role: RoleName }, cmd: Command) =>
      runCommand(cmd, async ({ backend }) => {
        await backend.provisioning('setRoleMapping', {
          brand_id: brandId,
          group_key: opts.group,
          role: ROLES.toProto(opts.role),
        });
        return {
          json: { group: opts.group, role: opts.role },
          human: `“${opts.group}” maps to ${opts.role}.`,
        };
      }),
    );
  defineCommand(prov, 'unmap <brandId>', 'Remove a group mapping (applied at once).', [
    'brandctl provisioning unmap br_123 --group "Brand Admins"',
  ])
    .requiredOption('--group <group>', "the group's name or id at the provider")
    .action((brandId: string, opts: { group: string }, cmd: Command) =>
      runCommand(cmd, async ({ backend }) => {
        await backend.provisioning('removeRoleMapping', {
          brand_id: brandId,
          group_key: opts.group,
        });
        return {
          json: { group: opts.group, removed: true },
          human: `“${opts.group}” no longer maps to a role.`,
        };
      }),
    );
  defineCommand(
    prov,
    'settings <brandId>',
    'Just-in-time membership, its claim, and key revocation.',
    ['brandctl provisioning settings br_123 --jit on --groups-claim groups --revoke-keys off'],
  )
    .addOption(
      new Option('--jit <on|off>', 'just-in-time membership at single sign-on').choices(ON_OFF),
    )
    .option('--groups-claim <claim>', 'the ID token claim carrying the groups')
    .addOption(
      new Option('--revoke-keys <on|off>', "revoke a deprovisioned person's API keys").choices(
        ON_OFF,
      ),
    )
    .action(
      (
        brandId: string,
        opts: { jit?: string; groupsClaim?: string; revokeKeys?: string },
        cmd: Command,
      ) =>
        runCommand(cmd, async ({ backend }) => {
          const settings = await setNamedSettings(backend, brandId, opts);
          return {
            json: { settings },
            human: formatFields([
              [
                'just in time',
                settings?.jit_enabled ? `on (claim ${settings.jit_groups_claim})` : 'off',
              ],
              ['revoke keys on deprovision', settings?.revoke_keys_on_deprovision ? 'on' : 'off'],
            ]),
          };
        }),
    );
}

/**
 * The settings named on the command line set, the others kept as they are: read, then written
 * onto what was read (if_settings). Written whole without it, another owner's change committing
 * between the two (console, API) was turned back unseen, "revoke the keys" off again. Refused
 * because that happened, it reads once more and applies the same flags onto the newer settings:
 * they name only what the operator asked to change. Three refusals in a row (a brand whose
 * settings change continuously) end as the service's precondition_failed.
 */
async function setNamedSettings(
  backend: Backend,
  brandId: string,
  opts: { jit?: string; groupsClaim?: string; revokeKeys?: string },
): Promise<ProvisioningSettings | undefined> {
  for (let attempt = 1; ; attempt++) {
    const now = (await backend.provisioning('getProvisioning', { brand_id: brandId })).settings;
    const named: ProvisioningSettings = {
      jit_enabled: opts.jit === undefined ? (now?.jit_enabled ?? false) : opts.jit === 'on',
      jit_groups_claim: opts.groupsClaim ?? now?.jit_groups_claim ?? 'groups',
      revoke_keys_on_deprovision:
        opts.revokeKeys === undefined
          ? (now?.revoke_keys_on_deprovision ?? false)
          : opts.revokeKeys === 'on',
    };
    try {
      const { settings } = await backend.provisioning('setProvisioningSettings', {
        brand_id: brandId,
        settings: named,
        if_settings: now,
      });
      return settings;
    } catch (err) {
      if (!(isAppError(err) && err.code === 'precondition_failed') || attempt === 3) throw err;
    }
  }
}
