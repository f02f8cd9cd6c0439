import { Option, type Command } from 'commander';
import type { UpdateBrandRequest } from '@brand/proto/access/v1';
import { TIERS, type TierName } from '@brand/shared/enums';
import { defineCommand, defineGroup, runCommand } from '../run';
import { brandFields, brandJson, brandTable, memberJson } from '../views';

interface CreateOptions {
  name: string;
  tier: TierName;
  owner: string;
  verified?: boolean;
}

interface UpdateOptions {
  tier?: TierName;
  verified?: boolean;
  unverified?: boolean;
  signInPolicy?: string;
  actor?: string;
}

/** The subscription tier (the contract's "plan": Free, Plus, Pro, Enterprise). */
const tierOption = (description: string) =>
  new Option('--tier <tier>', description).choices(TIERS.names);

/** brandctl brand create | list | update. */
export function registerBrandCommands(program: Command): void {
  const brand = defineGroup(program, 'brand', 'Create, list and update brands.', [
    'brandctl brand create --name "Acme Foods" --tier plus --owner ana@acme.test --verified',
    'brandctl brand list',
  ]);

  defineCommand(brand, 'create', 'Create a brand and its owner member.', [
    'brandctl brand create --name "Acme Foods" --tier plus --owner ana@acme.test --verified',
  ])
    .requiredOption('--name <name>', 'the brand name')
    .addOption(tierOption('subscription tier (API keys need plus or above)').makeOptionMandatory())
    .requiredOption('--owner <email>', "the owner's email; only owners can create keys")
    .option('--verified', 'mark the brand verified (API keys need a verified brand)')
    .action((opts: CreateOptions, cmd: Command) =>
      runCommand(cmd, async ({ backend }) => {
        const res = await backend.access('createBrand', {
          name: opts.name,
          tier: TIERS.toProto(opts.tier),
          verified: opts.verified === true,
          owner_email: opts.owner,
        });
        const { brand: created, owner } = res;
        if (!created || !owner) throw new Error('the records service returned no brand');
        return {
          json: { brand: brandJson(created), owner: memberJson(owner) },
          human: `Brand created.\n\n${brandFields(created, owner)}`,
        };
      }),
    );

  defineCommand(brand, 'list', 'List every brand, oldest first.', [
    'brandctl brand list',
    'brandctl brand list --json',
  ]).action((_opts: unknown, cmd: Command) =>
    runCommand(cmd, async ({ backend }) => {
      const { brands } = await backend.access('listBrands', {});
      return {
        json: { brands: brands.map(brandJson) },
        human:
          brands.length === 0
            ? 'No brands yet. Create one with: brandctl brand create --help'
            : brandTable(brands),
      };
    }),
  );

  defineCommand(
    brand,
    'update <brandId>',
    "Change a brand's tier or verification, or lift its sign-in policy.",
    [
      'brandctl brand update br_123 --tier pro --verified',
      'brandctl brand update br_123 --sign-in-policy any --actor support@ops.example',
    ],
  )
    .addOption(tierOption('the new subscription tier'))
    .addOption(new Option('--verified', 'mark the brand verified').conflicts('unverified'))
    .addOption(new Option('--unverified', 'mark the brand not verified'))
    .addOption(
      new Option(
        '--sign-in-policy <policy>',
        "lift the brand's sign-in policy (its identity provider is down and it requires SSO): " +
          "any (emailed links again) or passkey_or_sso; requiring SSO is an owner's act in the console",
      ).choices(['any', 'passkey_or_sso']),
    )
    .option(
      '--actor <email>',
      "who the brand's activity names for a policy change (default: operator)",
    )
    .action((brandId: string, opts: UpdateOptions, cmd: Command) => {
      if (
        opts.tier === undefined &&
        !opts.verified &&
        !opts.unverified &&
        opts.signInPolicy === undefined
      ) {
        cmd.error(
          'error: nothing to change: pass --tier, --verified, --unverified or --sign-in-policy',
        );
      }
      const req: UpdateBrandRequest = { brand_id: brandId, actor_email: opts.actor ?? '' };
      if (opts.tier !== undefined) req.tier = TIERS.toProto(opts.tier);
      if (opts.verified || opts.unverified) req.verified = opts.verified === true;
      if (opts.signInPolicy !== undefined) req.sign_in_policy = opts.signInPolicy;
      return runCommand(cmd, async ({ backend }) => {
        const res = await backend.access('updateBrand', req);
        if (!res.brand) throw new Error('the records service returned no brand');
        return {
          json: { brand: brandJson(res.brand) },
          human: `Brand updated.\n\n${brandFields(res.brand)}`,
        };
      });
    });
}
