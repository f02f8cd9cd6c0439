import type { ConnectionOptions } from 'node:tls';
import type { z } from 'zod';
import { defineLiveFileProperty, unreadableFileReason } from '../config/secretFiles';
import { namesLoopback } from '../egress/urlRules';

/** A database's connection settings: its URL and, for verify-full, the CA file. */
export interface DatabaseTlsSettings {
  DATABASE_URL: string;
  /** PEM file of the CA that signed the server's certificate (PGSSLROOTCERT's meaning). */
  DATABASE_SSL_CA_FILE?: string | undefined;
}

/** What pg is given: the URL without its TLS parameters, and the TLS options they meant. */
export interface PgConnection {
  connectionString: string;
  /** false: no TLS; undefined: the URL names none (pg then reads PGSSLMODE). */
  ssl?: ConnectionOptions | false;
}

/** The URL parameters this module reads and takes out, so pg's own reading cannot override them. */
const TLS_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'ssl', 'uselibpqcompat'];

const MODES = ['disable', 'require', 'verify-ca', 'verify-full', 'no-verify'] as const;
type Mode = (typeof MODES)[number];

/** The sslmode of a URL and the files it names (libpq's parameters). */
function tlsParamsOf(url: string): {
  mode: string | undefined;
  rootCert: string | undefined;
  cert: string | undefined;
  key: string | undefined;
} {
  const params = new URL(url).searchParams;
  const ssl = params.get('ssl');
  // pg's own "?ssl=true": TLS verified against the system CAs, as verify-full
  const mode = params.get('sslmode') ?? (ssl === 'true' || ssl === '1' ? 'verify-full' : undefined);
  return {
    mode: mode ?? undefined,
    rootCert: params.get('sslrootcert') ?? undefined,
    cert: params.get('sslcert') ?? undefined,
    key: params.get('sslkey') ?? undefined,
  };
}

/**
 * The pg connection for a database URL with libpq's meaning of sslmode (pg's own reading
 * differs: it verifies on "require" and ignores a CA for "verify-ca"):
 * - disable: no TLS; require: TLS without checking the certificate, or as verify-ca when a CA
 *   is given (libpq does the same);
 * - verify-ca: the chain must end at the CA (DATABASE_SSL_CA_FILE or sslrootcert), any name;
 * - verify-full: the chain and the host name, against the CA given or the system's CAs.
 * sslcert/sslkey in the URL are a client certificate. The files are read at each new
 * connection, again once they changed (a renewed CA bundle or certificate reaches the next
 * connection without a restart: defineLiveFileProperty); checkDatabaseTls refuses an
 * unreadable one at start.
 */
export function pgConnection(settings: DatabaseTlsSettings): PgConnection {
  const { mode, rootCert, cert, key } = tlsParamsOf(settings.DATABASE_URL);
  const url = new URL(settings.DATABASE_URL);
  for (const name of TLS_PARAMS) url.searchParams.delete(name);
  const connectionString = url.toString();
  if (mode === undefined) return { connectionString };
  if (mode === 'disable') return { connectionString, ssl: false };
  const caFile = settings.DATABASE_SSL_CA_FILE ?? rootCert;
  const ssl: ConnectionOptions = {};
  if (caFile) defineLiveFileProperty(ssl, 'ca', caFile);
  if (cert) defineLiveFileProperty(ssl, 'cert', cert);
  if (key) defineLiveFileProperty(ssl, 'key', key);
  const effective: Mode = mode === 'require' && caFile ? 'verify-ca' : (mode as Mode);
  if (effective === 'require' || effective === 'no-verify') ssl.rejectUnauthorized = false;
  else {
    ssl.rejectUnauthorized = true;
    // the chain is checked; the name is not (libpq's verify-ca)
    if (effective === 'verify-ca') ssl.checkServerIdentity = () => undefined;
  }
  return { connectionString, ssl };
}

/**
 * What is wrong with how a connection to a database off this machine would be protected, or
 * undefined when the server is verified (verify-full, verify-ca, require with a CA): no TLS, or
 * TLS that takes any certificate, lets whoever is on the path read and change every query (a
 * review of 2026-11-29: production took both in silence). A warning, not a refusal: a proxy
 * on the pod's own network (the Cloud SQL Auth Proxy) is reached as a named host too.
 */
export function databaseTlsWarning(
  settings: DatabaseTlsSettings,
  /** PGSSLMODE, which pg reads when the URL names no sslmode. */
  envMode?: string,
): string | undefined {
  let params: ReturnType<typeof tlsParamsOf>;
  let url: URL;
  try {
    params = tlsParamsOf(settings.DATABASE_URL);
    url = new URL(settings.DATABASE_URL);
  } catch {
    return undefined;
  }
  const host = url.hostname;
  if (host === '' || namesLoopback(url)) return undefined;
  const mode = params.mode ?? envMode;
  const verified =
    mode === 'verify-full' ||
    mode === 'verify-ca' ||
    (mode === 'require' && (settings.DATABASE_SSL_CA_FILE ?? params.rootCert) !== undefined);
  if (verified) return undefined;
  const how =
    mode === undefined || mode === 'disable'
      ? 'without TLS'
      : `over TLS that takes any certificate (sslmode=${mode})`;
  return `the database at ${host} is reached ${how}: use sslmode=verify-full (DATABASE_SSL_CA_FILE for a private CA)`;
}

/**
 * A superRefine step for DATABASE_URL and DATABASE_SSL_CA_FILE: an sslmode pg cannot honour
 * (prefer and allow fall back to plaintext in libpq), verify-ca without a CA, a CA file with
 * no sslmode that uses it, and a file that cannot be read are issues on the variable to fix.
 */
export function checkDatabaseTls(env: DatabaseTlsSettings, ctx: z.RefinementCtx): void {
  const issue = (path: keyof DatabaseTlsSettings, message: string): void => {
    ctx.addIssue({ code: 'custom', path: [path], message });
  };
  let params: ReturnType<typeof tlsParamsOf>;
  try {
    params = tlsParamsOf(env.DATABASE_URL);
  } catch {
    return; // the URL's own check says it is not a URL
  }
  const { mode, rootCert, cert, key } = params;
  if (mode !== undefined && !(MODES as readonly string[]).includes(mode)) {
    issue(
      'DATABASE_URL',
      `sslmode=${mode} is not supported: use verify-full (with DATABASE_SSL_CA_FILE for a private CA), verify-ca, require or disable`,
    );
    return;
  }
  const caFile = env.DATABASE_SSL_CA_FILE ?? rootCert;
  if (env.DATABASE_SSL_CA_FILE !== undefined && rootCert !== undefined)
    issue('DATABASE_SSL_CA_FILE', 'and sslrootcert in DATABASE_URL are both set: keep one');
  if (env.DATABASE_SSL_CA_FILE !== undefined && (mode === undefined || mode === 'disable'))
    issue(
      'DATABASE_SSL_CA_FILE',
      'is set but DATABASE_URL has no sslmode=verify-full (or verify-ca)',
    );
  if (mode === 'verify-ca' && caFile === undefined)
    issue('DATABASE_SSL_CA_FILE', 'is required with sslmode=verify-ca (the CA to verify against)');
  if ((cert === undefined) !== (key === undefined))
    issue('DATABASE_URL', 'sslcert and sslkey go together (a client certificate and its key)');
  const files: Array<[keyof DatabaseTlsSettings, string | undefined]> = [
    ['DATABASE_SSL_CA_FILE', env.DATABASE_SSL_CA_FILE],
    ['DATABASE_URL', rootCert],
    ['DATABASE_URL', cert],
    ['DATABASE_URL', key],
  ];
  for (const [name, file] of files) {
    const reason = file === undefined ? undefined : unreadableFileReason(file);
    if (reason) issue(name, reason);
  }
}
