import { Option, type Command } from 'commander';
import { ROLES, type RoleName } from '@brand/shared/enums';
import { formatFields, shortTime } from '../output';
import { defineCommand, defineGroup, runCommand } from '../run';
import { memberJson, roleName } from '../views';

interface AddOptions {
  email: string;
  role: RoleName;
}

/** brandctl member add. */
export function registerMemberCommands(program: Command): void {
  const member = defineGroup(program, 'member', "Manage a brand's members.", [
    'brandctl member add br_123 --email dev@acme.test --role admin',
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
}
