import pg from 'pg';
import { adminDatabaseUrl } from './testEnv';

/** Runs `fn` on a fresh admin connection (CREATE/DROP DATABASE cannot run in a pool transaction). */
export async function withAdminClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: adminDatabaseUrl(),
    connectionTimeoutMillis: 5_000,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Database names here are generated ([a-z0-9_]); refuse anything else rather than quote it. */
export function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`unexpected database name ${name}`);
  return `"${name}"`;
}

/** SQLSTATEs the harness reacts to. */
export const PG_DUPLICATE_DATABASE = '42P04';
export const PG_INVALID_CATALOG_NAME = '3D000';
export const PG_OBJECT_IN_USE = '55006';

export function pgCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A LIKE pattern matching names that start with `prefix` (its `_` and `%` taken literally). */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\_%]/g, (c) => `\\${c}`)}%`;
}
