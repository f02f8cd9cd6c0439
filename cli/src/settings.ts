import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSecretFile } from './secretFile';
import { UsageError } from './usageError';

export { UsageError };

/** Where brandctl connects and how it authenticates; resolved once per invocation. */
export interface Settings {
  /** host:port of the records service (AccessService and RecordsService). */
  recordsAddr: string;
  /** host:port of the plans service (PlansService). */
  plansAddr: string;
  /** host:port of the webhooks service (WebhooksService). */
  webhooksAddr: string;
  /** The admin token admin RPCs require; undefined when none was found anywhere. */
  token: string | undefined;
  /** Deadline of each call, in milliseconds. */
  timeoutMs: number;
}

/** The connection flags every command accepts (commander's parsed global options). */
export interface SettingFlags {
  records?: string | undefined;
  plans?: string | undefined;
  webhooks?: string | undefined;
  token?: string | undefined;
  /**
   * A file holding the admin token ("-": standard input), kept off the command line. Named
   * --admin-token-file: `stream add --token-file` is a stream's own token.
   */
  adminTokenFile?: string | undefined;
  timeout?: number | undefined;
}

export const DEFAULT_RECORDS_ADDR = '127.0.0.1:50051';
export const DEFAULT_PLANS_ADDR = '127.0.0.1:50052';
export const DEFAULT_WEBHOOKS_ADDR = '127.0.0.1:50053';
export const DEFAULT_TIMEOUT_MS = 10_000;

/** The repository root, from this file (src/ or dist/ alike sit one level below cli/). */
const REPO_ROOT = join(__dirname, '..', '..');

/**
 * The local stack's settings: committed non-secret settings, then the secrets `npm run up`
 * generates on first run (git-ignored). Located from this file, not from the working
 * directory, so `npx brandctl` works anywhere in the checkout.
 */
export const LOCAL_ENV_FILE = join(REPO_ROOT, 'config', 'local.env');
export const LOCAL_SECRETS_FILE = join(REPO_ROOT, '.local', 'secrets.env');

/**
 * Parses a dotenv-style file: KEY=VALUE lines, `#` comments, blank lines, an optional
 * `export ` prefix and optional matching quotes around the value. Lines that are not
 * assignments are ignored.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(raw);
    if (!m) continue;
    let value = m[2]!;
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted) value = quoted[2]!;
    else value = value.replace(/\s+#.*$/, '');
    vars[m[1]!] = value;
  }
  return vars;
}

/** Reads and parses an env file; a missing or unreadable file is simply empty. */
export function readEnvFile(path: string = LOCAL_ENV_FILE): Record<string, string> {
  try {
    return parseEnvFile(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

/** The local stack's settings and generated secrets, merged (secrets win). */
function readLocalSettings(): Record<string, string> {
  return { ...readEnvFile(LOCAL_ENV_FILE), ...readEnvFile(LOCAL_SECRETS_FILE) };
}

/**
 * Resolves the settings: flags beat environment variables, which beat the local stack's
 * files (config/local.env, .local/secrets.env), which beat the built-in default. The files
 * are read only when a value is missing from both flags and environment. An empty
 * environment variable counts as unset; an empty flag (or token file) is refused, since
 * falling back to the checkout's own admin token would act with a credential nobody gave.
 * Every value is checked here, where it is read: a bad one is a UsageError naming its source.
 */
export function resolveSettings(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
  envFile: () => Record<string, string> = readLocalSettings,
): Settings {
  let file: Record<string, string> | undefined;
  const fromFile = (name: string): string | undefined => nonEmpty((file ??= envFile())[name]);
  const address = (flag: string | undefined, flagName: string, name: string, fallback: string) => {
    if (flag !== undefined) return checkAddress(flag, flagName);
    const fromEnv = nonEmpty(env[name]);
    if (fromEnv !== undefined) return checkAddress(fromEnv, name);
    const local = fromFile(name);
    return local === undefined ? fallback : checkAddress(local, `${name} in config/local.env`);
  };

  return {
    recordsAddr: address(flags.records, '--records', 'RECORDS_GRPC_ADDR', DEFAULT_RECORDS_ADDR),
    plansAddr: address(flags.plans, '--plans', 'PLANS_GRPC_ADDR', DEFAULT_PLANS_ADDR),
    webhooksAddr: address(
      flags.webhooks,
      '--webhooks',
      'WEBHOOKS_GRPC_ADDR',
      DEFAULT_WEBHOOKS_ADDR,
    ),
    token: resolveToken(flags, env, () => fromFile('ADMIN_TOKEN')),
    timeoutMs: flags.timeout ?? DEFAULT_TIMEOUT_MS,
  };
}

/** The admin token's sources in order: --token, --admin-token-file, ADMIN_TOKEN, ADMIN_TOKEN_FILE, the local files. */
function resolveToken(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
  local: () => string | undefined,
): string | undefined {
  if (flags.token !== undefined) return checkToken(flags.token, '--token');
  if (flags.adminTokenFile !== undefined)
    return tokenFromFile(flags.adminTokenFile, '--admin-token-file');
  const fromEnv = nonEmpty(env.ADMIN_TOKEN);
  if (fromEnv !== undefined) return checkToken(env.ADMIN_TOKEN!, 'ADMIN_TOKEN');
  const envFile = nonEmpty(env.ADMIN_TOKEN_FILE);
  if (envFile !== undefined) return tokenFromFile(envFile, 'ADMIN_TOKEN_FILE');
  const fromLocal = local();
  return fromLocal === undefined
    ? undefined
    : checkToken(fromLocal, 'ADMIN_TOKEN in .local/secrets.env');
}

/** The longest admin token brandctl sends; real ones are 32-64 characters. */
const MAX_TOKEN_LENGTH = 1024;

/**
 * An admin token as given, or a UsageError naming `source` and never the value: gRPC refuses
 * metadata outside visible ASCII and would quote the value in its error, and a token
 * holding a line break or a space is a wrong file or a paste gone wrong, not a token.
 */
function checkToken(value: string, source: string, flag: string = source): string {
  if (value === '')
    throw new UsageError(
      `${source} is empty; give the admin token, or leave ${flag} out to use the environment or the local stack's token`,
    );
  if (value.length > MAX_TOKEN_LENGTH)
    throw new UsageError(
      `${source}: the admin token is longer than ${MAX_TOKEN_LENGTH} characters (not shown)`,
    );
  if (!/^[\x21-\x7e]+$/.test(value))
    throw new UsageError(
      `${source}: the admin token holds a character other than visible ASCII (a space, tab, control character or second line; not shown)`,
    );
  return value;
}

/** The admin token in a file, its one trailing newline (LF or CRLF) stripped, checked. */
function tokenFromFile(path: string, flag: string): string {
  const source = `${flag} ${path === '-' ? '- (standard input)' : path}`;
  let text: string;
  try {
    text = readSecretFile(path);
  } catch (err) {
    throw new UsageError(`${flag}: ${(err as Error).message}`);
  }
  return checkToken(text.replace(/\r?\n$/, ''), source, flag);
}

/**
 * A service address as host:port (a name, IPv4, or [IPv6]) with a port 1-65535, optionally as
 * the gRPC target `dns:///host:port` (or `dns:host:port`, what the helm chart sets), or a
 * `unix:` socket path; anything else is a usage error naming its source, rather than exit 3
 * "cannot reach" later.
 */
function checkAddress(value: string, source: string): string {
  if (/^unix:\S+$/.test(value)) return value;
  const m =
    /^(?:dns:(?:\/\/[^/\s]*\/)?)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/.exec(
      value,
    );
  const port = m ? Number(m[2]) : 0;
  if (port < 1 || port > 65535)
    throw new UsageError(
      `${source} ${JSON.stringify(value)} is not a host:port address (port 1-65535), e.g. 127.0.0.1:50051`,
    );
  return value;
}

/**
 * A secret kept in a file ("-": standard input), trimmed: how an operator gives brandctl a
 * token or key without putting it in the shell's history and every user's process list.
 * Bounded (readSecretFile); undefined for no path or an empty file.
 */
export function secretFromFile(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  return nonEmpty(readSecretFile(path));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
