import type { Command } from 'commander';
import { createBackend, type Backend } from './client';
import { describeFailure, type ServiceName } from './failure';
import { printFailure, printResult, processStreams, type Rendered, type Streams } from './output';
import { resolveSettings, UsageError, type Settings } from './settings';

/** What a command's handler gets: a connected backend and a way to tell the operator things. */
export interface CommandContext {
  backend: Backend;
  settings: Settings;
  /** True with --json: the handler's human text is discarded, notices still reach stderr. */
  json: boolean;
  /** A line for the operator on stderr (never stdout, which --json keeps parseable). */
  notice: (text: string) => void;
}

/** The options commander collects for every command: the connection flags and --json. */
interface GlobalOptions {
  records?: string;
  webhooks?: string;
  plans?: string;
  token?: string;
  adminTokenFile?: string;
  timeout?: number;
  json?: boolean;
}

/**
 * Adds a subcommand group (brand, member, key) with its description and examples.
 * A group run without a subcommand prints its help and exits 2 (usage).
 */
export function defineGroup(parent: Command, name: string, summary: string, examples: string[]) {
  return withExamples(parent.command(name).description(summary), examples);
}

/** Adds a runnable command with its description, examples and the --json option. */
export function defineCommand(parent: Command, usage: string, summary: string, examples: string[]) {
  return withExamples(
    parent
      .command(usage)
      .description(summary)
      .option('--json', 'print machine-readable JSON on stdout instead of text'),
    examples,
  );
}

function withExamples(cmd: Command, examples: string[]): Command {
  const lines = examples.map((e) => `  $ ${e}`).join('\n');
  return cmd.addHelpText('after', `\nExample${examples.length > 1 ? 's' : ''}:\n${lines}\n`);
}

/**
 * Runs one command's handler: resolves the settings (flags > env > the local stack's files),
 * connects, prints the result, and on failure prints the service's reason and sets the
 * exit code (1 refused, 3 unreachable). Never throws, and never prints the token.
 * `service` names the service the command calls, for "cannot reach" messages.
 */
export async function runCommand(
  cmd: Command,
  handler: (ctx: CommandContext) => Promise<Rendered>,
  streams: Streams = processStreams,
  service: Exclude<ServiceName, 'gateway'> = 'records',
): Promise<void> {
  const flags = cmd.optsWithGlobals<GlobalOptions>();
  if (flags.token !== undefined) {
    streams.stderr(
      'brandctl: warning: --token puts the admin token in your shell history and the process list; use --admin-token-file or ADMIN_TOKEN.\n',
    );
  }
  let settings: Settings;
  try {
    settings = resolveSettings(flags, process.env);
  } catch (err) {
    // A bad flag, variable or token file: a usage error (exit 2) like commander's own.
    if (err instanceof UsageError) return cmd.error(`error: ${err.message}`);
    throw err;
  }
  const address = {
    records: settings.recordsAddr,
    plans: settings.plansAddr,
    webhooks: settings.webhooksAddr,
  }[service];
  let backend: Backend | undefined;
  try {
    await runReported(
      cmd,
      (ctx) => {
        backend = createBackend(settings);
        return handler({ ...ctx, backend, settings });
      },
      { address, timeoutMs: settings.timeoutMs, service, secret: settings.token },
      streams,
    );
  } finally {
    backend?.close();
  }
}

/** What a command without the admin backend gets: the output mode and stderr. */
export type ReportContext = Pick<CommandContext, 'json' | 'notice'>;

/**
 * Runs a handler and reports its outcome as every command does (the result on stdout, a
 * failure as `error: ...` with its exit code), with no admin backend: for commands that
 * reach the service otherwise (`events follow` with an API key, over the public API).
 * `where` names what a "cannot reach" failure is about.
 */
export async function runReported(
  cmd: Command,
  handler: (ctx: ReportContext) => Promise<Rendered>,
  where: { address: string; timeoutMs: number; service: ServiceName; secret?: string | undefined },
  streams: Streams = processStreams,
): Promise<void> {
  const json = cmd.optsWithGlobals<GlobalOptions>().json === true;
  const notice = (text: string): void => streams.stderr(`${text}\n`);
  try {
    printResult(streams, json, await handler({ json, notice }));
  } catch (err) {
    const { failure, exitCode } = describeFailure(
      err,
      where.address,
      where.timeoutMs,
      where.service,
      where.secret,
    );
    printFailure(streams, json, failure);
    process.exitCode = exitCode;
  }
}

/** Runs a receiver command against the webhooks service (its address in failures). */
export const onWebhooks = (
  cmd: Command,
  handler: (ctx: CommandContext) => Promise<Rendered>,
): Promise<void> => runCommand(cmd, handler, undefined, 'webhooks');
