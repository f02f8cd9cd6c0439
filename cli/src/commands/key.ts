import { Option, type Command } from 'commander';
import { ENVIRONMENTS, type EnvironmentName } from '@brand/shared/enums';
import { indent } from '../output';
import { defineCommand, defineGroup, runCommand } from '../run';
import { keyFields, keyJson, keyTable, SECRET_WARNING, secretBlock } from '../views';

interface CreateOptions {
  brand: string;
  name: string;
  env: EnvironmentName;
  actor: string;
  campaignsPrepare?: boolean;
}

/** The only opt-in permission (DESIGN "Keys"); reading records needs none. */
export const CAMPAIGNS_PREPARE = 'campaigns:prepare';

/** brandctl key create | list | revoke. */
export function registerKeyCommands(program: Command): void {
  const key = defineGroup(program, 'key', "Create, list and revoke a brand's API keys.", [
    'brandctl key create --brand br_123 --name "Warehouse sync" --env live --actor ana@acme.test',
    'brandctl key list --brand br_123',
  ]);

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
    .action((opts: CreateOptions, cmd: Command) =>
      runCommand(cmd, async ({ backend, json, notice }) => {
        const res = await backend.access('createKey', {
          brand_id: opts.brand,
          name: opts.name,
          environment: ENVIRONMENTS.toProto(opts.env),
          actor_email: opts.actor,
          permissions: opts.campaignsPrepare ? [CAMPAIGNS_PREPARE] : [],
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
}
