import { Command } from 'commander';
import { parseTimeout } from './args';
import { registerActivityCommand } from './commands/activity';
import { registerBrandCommands } from './commands/brand';
import { registerChangeCommands } from './commands/changes';
import { registerEventsCommands } from './commands/events';
import { registerKeyCommands } from './commands/key';
import { registerMemberCommands } from './commands/member';
import { registerProvisioningCommands } from './commands/provisioning';
import { registerPlanCommands } from './commands/plan';
import { registerReceiverCommands } from './commands/receiver';
import { registerSeedCommand } from './commands/seed';
import { registerStreamCommands } from './commands/stream';
import { registerUsageCommands } from './commands/usage';
import {
  DEFAULT_PLANS_ADDR,
  DEFAULT_RECORDS_ADDR,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_WEBHOOKS_ADDR,
} from './settings';

/**
 * brandctl's command tree (main.ts runs it; the docs test walks it). Connection flags are global (accepted before or after the
 * subcommand); commands resolve them lazily, so --help never touches the network.
 */
export function buildProgram(): Command {
  const program = new Command('brandctl')
    .description(
      'The Developers area: brands, members, API keys, campaign plans, event receivers, demo data and business changes.',
    )
    .option(
      '--records <host:port>',
      `records service address (env RECORDS_GRPC_ADDR; default ${DEFAULT_RECORDS_ADDR})`,
    )
    .option(
      '--webhooks <host:port>',
      `webhooks service address (env WEBHOOKS_GRPC_ADDR; default ${DEFAULT_WEBHOOKS_ADDR})`,
    )
    .option(
      '--plans <host:port>',
      `plans service address (env PLANS_GRPC_ADDR; default ${DEFAULT_PLANS_ADDR})`,
    )
    .option(
      '--admin-token-file <path>',
      'admin token for admin calls, read from a file or "-" for stdin (env ADMIN_TOKEN, ADMIN_TOKEN_FILE)',
    )
    .option(
      '--token <token>',
      'the admin token itself: visible in shell history and to every user of this machine; prefer --admin-token-file',
    )
    .option('--timeout <ms>', `deadline per call (default ${DEFAULT_TIMEOUT_MS})`, parseTimeout)
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    // Throw instead of exiting, so main() maps every usage error to exit code 2. Set before
    // the subcommands are added: they inherit it.
    .exitOverride();
  program.addHelpText(
    'after',
    '\nSettings missing from flags and environment are read from the local stack files\nconfig/local.env and .local/secrets.env.\n\nExamples:\n  $ brandctl seed\n  $ brandctl brand list --json\n  $ brandctl key list --brand br_123',
  );
  registerBrandCommands(program);
  registerMemberCommands(program);
  registerProvisioningCommands(program);
  registerKeyCommands(program);
  registerUsageCommands(program);
  registerReceiverCommands(program);
  registerStreamCommands(program);
  registerSeedCommand(program);
  registerChangeCommands(program);
  registerPlanCommands(program);
  registerActivityCommand(program);
  registerEventsCommands(program);
  return program;
}
