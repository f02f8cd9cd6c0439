import { Option, type Command } from 'commander';
import {
  ENVIRONMENTS,
  KEY_OVERLAPS,
  type EnvironmentName,
  type KeyOverlapName,
} from '@brand/shared/enums';
import { indent } from '../output';
import { defineCommand, defineGroup, runCommand } from '../run';
import { keyFields, keyJson, keyTable, SECRET_WARNING, secretBlock } from '../views';

interface CreateOptions {
  brand: string;
  name: string;
  env: EnvironmentName;
  actor: string;
  campaignsPrepare?: boolean;
  auditRead?: boolean;
  networks?: string;
  expiresAt?: string;
}

/**
 * `--networks 203.0.113.0/24,2001:db8::/32` as a list; records reads and checks each. A value
 * with no network in it (`--set ''`, `--set ,`) is sent as it is, so records refuses it rather
 * than it reading as `--any` (a review of 2026-11-30); no option is no networks.
 */
const networkList = (text: string | undefined): string[] => {
  if (text === undefined) return [];
  const entries = text.split(/[\s,]+/).filter((s) => s !== '');
  return entries.length === 0 ? [text.slice(0, 200)] : entries;
};

/** The only opt-in permission (docs/contract.md#key-format-and-permissions); reading records needs none. */
export const CAMPAIGNS_PREPARE = 'campaigns:prepare';

/** brandctl key create | list | revoke | roll | expire | networks | policy. */
export function registerKeyCommands(program: Command): void {
  const key = defineGroup(
    program,
    'key',
    "Create, list, roll, expire and revoke a brand's API keys.",
    [
      'brandctl key create --brand br_123 --name "Warehouse sync" --env live --actor ana@acme.test',
      'brandctl key list --brand br_123',
      'brandctl key roll key_123 --expires-in 24h --actor ana@acme.test',
      'brandctl key networks key_123 --set 203.0.113.0/24,2001:db8::/32',
      'brandctl key policy --brand br_123 --require-networks on',
    ],
  );

  defineCommand(key, 'create', 'Create an API key; its secret is printed once.', [
    'brandctl key create --brand br_123 --name "Warehouse sync" --env live --actor ana@acme.test',
    'brandctl key create --brand br_123 --name "Planner" --env live --actor ana@acme.test --campaigns-prepare',
  ])
    .requiredOption('--brand <brandId>', 'the brand the key reads (br_...)')
    .requiredOption('--name <name>', 'names the integration, e.g. "Warehouse sync"')
    .addOption(
      new Option('--env <env>', 'the environment the key works in')
        .choices(ENVIRONMENTS.names)
        .makeOptionMandatory(),
    )
    .requiredOption('--actor <email>', 'the brand owner creating the key')
    .option('--campaigns-prepare', `also grant ${CAMPAIGNS_PREPARE} (live keys only)`)
    .option('--audit-read', 'also grant audit:read (GET /api/v1/audit-log)')
    .option(
      '--networks <cidrs>',
      'the only networks the key works from, comma-separated (e.g. 203.0.113.0/24,2001:db8::/32)',
    )
    .option(
      '--expires-at <time>',
      'refuse the key from this time on (RFC 3339, e.g. 2030-01-31T12:00:00Z)',
    )
    .action((opts: CreateOptions, cmd: Command) =>
      runCommand(cmd, async ({ backend, json, notice }) => {
        const res = await backend.access('createKey', {
          brand_id: opts.brand,
          name: opts.name,
          environment: ENVIRONMENTS.toProto(opts.env),
          actor_email: opts.actor,
          permissions: [
            ...(opts.campaignsPrepare ? [CAMPAIGNS_PREPARE] : []),
            ...(opts.auditRead ? ['audit:read'] : []),
          ],
          expires_at: opts.expiresAt ?? '',
          allowed_networks: networkList(opts.networks),
        });
        if (!res.key) throw new Error('the records service returned no key');
        if (json) notice(`warning: ${SECRET_WARNING.replace(/\n/g, ' ')}`);
        return {
          json: { key: keyJson(res.key), secret: res.secret },
          human: `Key created.\n\n${indent(keyFields(res.key))}\n\n${indent(secretBlock(res.secret))}`,
        };
      }),
    );

  defineCommand(key, 'list', "List a brand's keys, newest first (never their secrets).", [
    'brandctl key list --brand br_123',
  ])
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .action((opts: { brand: string }, cmd: Command) =>
      runCommand(cmd, async ({ backend }) => {
        const { keys } = await backend.access('listKeys', { brand_id: opts.brand });
        return {
          json: { keys: keys.map(keyJson) },
          human:
            keys.length === 0
              ? `No keys for ${opts.brand} yet. Create one with: brandctl key create --help`
              : keyTable(keys),
        };
      }),
    );

  defineCommand(key, 'revoke <keyId>', 'Revoke a key for good; it stops working at once.', [
    'brandctl key revoke key_123 --actor ana@acme.test',
  ])
    .option('--actor <email>', 'who is revoking it, for the record (default: operator)')
    .action((keyId: string, opts: { actor?: string }, cmd: Command) =>
      runCommand(cmd, async ({ backend }) => {
        const res = await backend.access('revokeKey', {
          key_id: keyId,
          actor_email: opts.actor ?? '',
        });
        if (!res.key) throw new Error('the records service returned no key');
        return {
          json: { key: keyJson(res.key) },
          human:
            `Key ${res.key.id} revoked at ${res.key.revoked_at ?? '-'}; it can never be used again.\n\n` +
            indent(keyFields(res.key)),
        };
      }),
    );

  defineCommand(
    key,
    'roll <keyId>',
    'Replace a key: a new one with the same name, environment and permissions (its secret printed once); the old one expires after the overlap.',
    [
      'brandctl key roll key_123 --expires-in 24h --actor ana@acme.test',
      'brandctl key roll key_123 --expires-in now --actor ana@acme.test',
    ],
  )
    .addOption(
      new Option('--expires-in <overlap>', 'how long the old key keeps working')
        .choices(KEY_OVERLAPS.names)
        .makeOptionMandatory(),
    )
    .requiredOption('--actor <email>', "the brand owner rolling it (the new key's creator)")
    .action((keyId: string, opts: { expiresIn: KeyOverlapName; actor: string }, cmd: Command) =>
      runCommand(cmd, async ({ backend, json, notice }) => {
        const res = await backend.access('rollKey', {
          key_id: keyId,
          old_key_expires_in: KEY_OVERLAPS.toProto(opts.expiresIn),
          actor_email: opts.actor,
        });
        if (!res.key || !res.replaced) throw new Error('the records service returned no key');
        if (json) notice(`warning: ${SECRET_WARNING.replace(/\n/g, ' ')}`);
        return {
          json: { key: keyJson(res.key), secret: res.secret, replaced: keyJson(res.replaced) },
          human:
            `Key ${res.replaced.id} rolled; it expires at ${res.replaced.expires_at ?? '-'}, then every request with it gets 401 invalid_key.\n\n` +
            `New key:\n\n${indent(keyFields(res.key))}\n\n${indent(secretBlock(res.secret))}`,
        };
      }),
    );

  defineCommand(
    key,
    'expire <keyId>',
    "Give a key an expiry, or bring it forward (--now ends a roll's overlap). Never later.",
    [
      'brandctl key expire key_123 --now',
      'brandctl key expire key_123 --at 2030-01-31T12:00:00Z --actor ana@acme.test',
    ],
  )
    .addOption(new Option('--now', 'expire the key at once').conflicts('at'))
    .option('--at <time>', 'expire it at this time (RFC 3339, in the future)')
    .option('--actor <email>', 'who is changing it, for the record (default: operator)')
    .action((keyId: string, opts: { now?: boolean; at?: string; actor?: string }, cmd: Command) => {
      if (!opts.now && opts.at === undefined) cmd.error('error: give --now or --at <time>');
      return runCommand(cmd, async ({ backend }) => {
        const res = await backend.access('setKeyExpiry', {
          key_id: keyId,
          now: opts.now === true,
          expires_at: opts.at ?? '',
          actor_email: opts.actor ?? '',
        });
        if (!res.key) throw new Error('the records service returned no key');
        return {
          json: { key: keyJson(res.key) },
          human:
            `Key ${res.key.id} expires at ${res.key.expires_at ?? '-'}; from then on it can never be used again.\n\n` +
            indent(keyFields(res.key)),
        };
      });
    });

  defineCommand(
    key,
    'networks <keyId>',
    'Set the only networks a key works from (issue 63); a request from elsewhere gets 403 network_not_allowed.',
    [
      'brandctl key networks key_123 --set 203.0.113.0/24,2001:db8::/32 --actor ana@acme.test',
      'brandctl key networks key_123 --any',
    ],
  )
    .addOption(new Option('--set <cidrs>', 'the whole new list, comma-separated').conflicts('any'))
    .option(
      '--any',
      'let the key work from any network (refused while the brand requires networks)',
    )
    .option('--actor <email>', 'who is changing it, for the record (default: operator)')
    .action(
      (keyId: string, opts: { set?: string; any?: boolean; actor?: string }, cmd: Command) => {
        if (opts.set === undefined && !opts.any) cmd.error('error: give --set <cidrs> or --any');
        return runCommand(cmd, async ({ backend }) => {
          const res = await backend.access('setKeyNetworks', {
            key_id: keyId,
            allowed_networks: networkList(opts.set),
            actor_email: opts.actor ?? '',
          });
          if (!res.key) throw new Error('the records service returned no key');
          return {
            json: { key: keyJson(res.key) },
            human: `Key ${res.key.id} works from ${res.key.allowed_networks.join(', ') || 'any network'}; every gateway uses that from its next request.\n\n${indent(keyFields(res.key))}`,
          };
        });
      },
    );

  defineCommand(
    key,
    'policy',
    "Show or set the brand's key policy: every new key must have allowed networks (issue 63). Lists the active keys without networks.",
    [
      'brandctl key policy --brand br_123',
      'brandctl key policy --brand br_123 --require-networks on --actor ana@acme.test',
    ],
  )
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .addOption(
      new Option('--require-networks <onOff>', 'require allowed networks for new keys').choices([
        'on',
        'off',
      ]),
    )
    .option('--actor <email>', 'who is changing it, for the record (default: operator)')
    .action(
      (opts: { brand: string; requireNetworks?: 'on' | 'off'; actor?: string }, cmd: Command) =>
        runCommand(cmd, async ({ backend }) => {
          if (opts.requireNetworks !== undefined) {
            await backend.access('setKeyPolicy', {
              brand_id: opts.brand,
              require_key_networks: opts.requireNetworks === 'on',
              actor_email: opts.actor ?? '',
            });
          }
          const { keys, require_key_networks: required } = await backend.access('listKeys', {
            brand_id: opts.brand,
          });
          const now = Date.now();
          const open = keys.filter(
            (k) =>
              k.allowed_networks.length === 0 &&
              !k.revoked_at &&
              !(k.expires_at && Date.parse(k.expires_at) <= now),
          );
          const lines = [
            `New keys ${required ? 'must have' : 'may work without'} allowed networks.`,
            open.length === 0
              ? 'Every active key has allowed networks.'
              : `Active keys that work from any network:\n${open.map((k) => `  ${k.id}  ${k.prefix}  ${k.name}`).join('\n')}`,
          ];
          return {
            json: { require_key_networks: required, keys_without_networks: open.map(keyJson) },
            human: lines.join('\n'),
          };
        }),
    );
}
