import { Option, type Command } from 'commander';
import { ROLES, type RoleName } from '@brand/shared/enums';
import { formatFields, shortTime } from '../output';
import { defineCommand, defineGroup, runCommand } from '../run';
import { memberJson, roleName } from '../views';

interface AddOptions {
  email: string;
  role: RoleName;
}

interface RemovePasskeysOptions {
  email: string;
  actor?: string;
}

/** brandctl member add, brandctl member remove-passkeys. */
export function registerMemberCommands(program: Command): void {
  const member = defineGroup(program, 'member', "Manage a brand's members and people's passkeys.", [
    'brandctl member add br_123 --email dev@acme.test --role admin',
    'brandctl member remove-passkeys --email dev@acme.test --actor support@ops.example',
  ]);

  defineCommand(member, 'add <brandId>', 'Add a member with a role to a brand.', [
    'brandctl member add br_123 --email dev@acme.test --role admin',
    'brandctl member add br_123 --email co-owner@acme.test --role owner',
  ])
    .requiredOption('--email <email>', "the member's email")
    .addOption(
      new Option('--role <role>', 'the role (only owners can create keys)')
        .choices(ROLES.names)
        .makeOptionMandatory(),
    )
    .action((brandId: string, opts: AddOptions, cmd: Command) =>
      runCommand(cmd, async ({ backend }) => {
        const { member: added } = await backend.access('addMember', {
          brand_id: brandId,
          email: opts.email,
          role: ROLES.toProto(opts.role),
        });
        if (!added) throw new Error('the records service returned no member');
        return {
          json: { member: memberJson(added) },
          human: `Member added.\n\n${formatFields([
            ['id', added.id],
            ['brand', added.brand_id],
            ['email', added.email],
            ['role', roleName(added.role)],
            ['created', shortTime(added.created_at)],
          ])}`,
        };
      }),
    );

  defineCommand(
    member,
    'remove-passkeys',
    "Remove every passkey of a person's address, for someone who lost the devices that hold them.",
    ['brandctl member remove-passkeys --email dev@acme.test --actor support@ops.example'],
  )
    .requiredOption('--email <email>', "the person's address (every brand of it)")
    .option('--actor <email>', "who the brands' activity names (default: operator)")
    .addHelpText(
      'after',
      '\nCheck out of band who asks first: the person cannot remove a passkey from a session\n' +
        'opened by an emailed link (the mailbox alone must not swap it for another). They then\n' +
        'add a new passkey from a link session. Their sessions stay.',
    )
    .action((opts: RemovePasskeysOptions, cmd: Command) =>
      runCommand(cmd, async ({ backend }) => {
        const { removed } = await backend.access('removeAddressPasskeys', {
          email: opts.email,
          actor_email: opts.actor ?? '',
        });
        return {
          json: { email: opts.email, removed },
          human:
            removed === 0
              ? `${opts.email} has no passkey: nothing removed.`
              : `Removed ${removed} passkey${removed === 1 ? '' : 's'} of ${opts.email}; each brand of the address records it in its activity.`,
        };
      }),
    );
}
