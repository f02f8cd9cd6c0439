import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339 } from '@brand/shared/db';

type Db = Pool | PoolClient;

export interface PasskeyRow {
  id: string;
  email: string;
  credential_id: string;
  public_key: Buffer;
  counter: number;
  transports: string[];
  user_handle: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

const COLUMNS = `id, email, credential_id, public_key, counter::float8 as counter, transports,
  user_handle, name, ${rfc3339('created_at')} as created_at,
  ${rfc3339('last_used_at')} as last_used_at`;

/**
 * Holds the address's passkeys still until the transaction ends: a change that depends on how
 * many the address has (a link session's first passkey) is decided on a count no one else moves.
 */
export async function lockPasskeysOf(db: PoolClient, email: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('console_passkeys:' || $1, 0))`, [
    email,
  ]);
}

export async function insertPasskey(
  db: Db,
  p: {
    id: string;
    email: string;
    credentialId: string;
    publicKey: Uint8Array;
    counter: number;
    transports: string[];
    userHandle: string;
    name: string;
  },
): Promise<PasskeyRow> {
  const r = await db.query<PasskeyRow>(
    `insert into console_passkeys
       (id, email, credential_id, public_key, counter, transports, user_handle, name)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${COLUMNS}`,
    [
      p.id,
      p.email,
      p.credentialId,
      Buffer.from(p.publicKey),
      p.counter,
      p.transports,
      p.userHandle,
      p.name,
    ],
  );
  return r.rows[0]!;
}

/** The passkeys of an address, oldest first. */
export async function selectPasskeysOf(db: Db, email: string): Promise<PasskeyRow[]> {
  const r = await db.query<PasskeyRow>(
    `select ${COLUMNS} from console_passkeys where email = $1 order by created_at, id`,
    [email],
  );
  return r.rows;
}

export async function selectPasskeyByCredential(
  db: Db,
  credentialId: string,
): Promise<PasskeyRow | undefined> {
  const r = await db.query<PasskeyRow>(
    `select ${COLUMNS} from console_passkeys where credential_id = $1`,
    [credentialId],
  );
  return r.rows[0];
}

/** Removes one passkey of an address; false when it is unknown or another address's. */
export async function deletePasskeyOf(db: Db, email: string, id: string): Promise<boolean> {
  const r = await db.query(`delete from console_passkeys where id = $1 and email = $2`, [
    id,
    email,
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** Deletes every passkey of the address; the names of those deleted, oldest first. */
export async function deletePasskeysOf(db: Db, email: string): Promise<string[]> {
  const r = await db.query<{ name: string; created_at: Date }>(
    `delete from console_passkeys where email = $1 returning name, created_at`,
    [email],
  );
  return r.rows
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
    .map((row) => row.name);
}

/**
 * Stores a use's counter only if nobody stored another since it was read (compare and set):
 * of two answers racing with the same counter, one wins. False when it lost.
 */
export async function advanceCounter(
  db: Db,
  p: { id: string; from: number; to: number },
): Promise<boolean> {
  const r = await db.query(
    `update console_passkeys set counter = $3, last_used_at = now()
     where id = $1 and counter = $2`,
    [p.id, p.from, p.to],
  );
  return (r.rowCount ?? 0) > 0;
}
