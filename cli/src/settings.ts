import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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
 * local stack's files (config/local.env, .local/secrets.env), which beat the built-in default. The file is read only when a value
 * is missing from both flags and environment. Empty strings count as unset.
 */
export function resolveSettings(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
  envFile: () => Record<string, string> = readLocalSettings,
): Settings {
  let file: Record<string, string> | undefined;
  const fromFile = (name: string): string | undefined => nonEmpty((file ??= envFile())[name]);
  const pick = (flag: string | undefined, name: string): string | undefined =>
    nonEmpty(flag) ?? nonEmpty(env[name]) ?? fromFile(name);

  return {
    recordsAddr: pick(flags.records, 'RECORDS_GRPC_ADDR') ?? DEFAULT_RECORDS_ADDR,
    plansAddr: pick(flags.plans, 'PLANS_GRPC_ADDR') ?? DEFAULT_PLANS_ADDR,
    webhooksAddr: pick(flags.webhooks, 'WEBHOOKS_GRPC_ADDR') ?? DEFAULT_WEBHOOKS_ADDR,
    token:
      nonEmpty(flags.token) ??
      secretFromFile(flags.adminTokenFile) ??
      nonEmpty(env.ADMIN_TOKEN) ??
      secretFromFile(nonEmpty(env.ADMIN_TOKEN_FILE)) ??
      fromFile('ADMIN_TOKEN'),
    timeoutMs: flags.timeout ?? DEFAULT_TIMEOUT_MS,
  };
}

/**
 * A secret kept in a file ("-": standard input), trimmed: how an operator gives brandctl a token
 * without putting it in the shell's history and every user's process list.
 */
export function secretFromFile(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return nonEmpty(readFileSync(path === '-' ? 0 : path, 'utf8'));
  } catch (err) {
    throw new Error(
      `cannot read ${path === '-' ? 'standard input' : path}: ${(err as Error).message}`,
    );
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
