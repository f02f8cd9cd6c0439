import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339 } from '@brand/shared/db';
import type { SealedSecret } from '@brand/shared/secrets';

type Db = Pool | PoolClient;

/** A brand's identity provider as stored; the client secret sealed. */
export interface SsoConnectionRow {
  brand_id: string;
  issuer: string;
  client_id: string;
  client_secret_ciphertext: Buffer;
  client_secret_key_id: string;
  allowed_domains: string[];
  enabled: boolean;
  updated_at: string;
  /** When the provider (issuer or client id) was last set: requiring SSO waits a day after. */
  provider_set_at: string;
  /** Whether that was less than a day ago. */
  provider_recent: boolean;
}

/** Requiring single sign-on waits this long after its provider was set (issue 59 part 4). */
const PROVIDER_WAIT = '1 day';

const COLUMNS = `brand_id, issuer, client_id, client_secret_ciphertext, client_secret_key_id,
  allowed_domains, enabled, ${rfc3339('updated_at')} as updated_at,
  ${rfc3339('provider_set_at')} as provider_set_at,
  provider_set_at > now() - interval '${PROVIDER_WAIT}' as provider_recent`;

/** A new issuer or client id is a new provider: it is set now; anything else keeps its time. */
const PROVIDER_SET_AT = `case when sso_connections.issuer <> $2 or sso_connections.client_id <> $3
  then now() else sso_connections.provider_set_at end`;

export async function selectSsoConnection(
  db: Db,
  brandId: string,
): Promise<SsoConnectionRow | undefined> {
  const r = await db.query<SsoConnectionRow>(
    `select ${COLUMNS} from sso_connections where brand_id = $1`,
    [brandId],
  );
  return r.rows[0];
}

/** Creates or replaces the brand's connection; without a new secret the stored one stays. */
export async function upsertSsoConnection(
  db: Db,
  c: {
    brandId: string;
    issuer: string;
    clientId: string;
    secret: SealedSecret | undefined;
    allowedDomains: string[];
    enabled: boolean;
  },
): Promise<SsoConnectionRow> {
  if (!c.secret) {
    const r = await db.query<SsoConnectionRow>(
      `update sso_connections
         set provider_set_at = ${PROVIDER_SET_AT}, issuer = $2, client_id = $3,
             allowed_domains = $4, enabled = $5, updated_at = now()
       where brand_id = $1 returning ${COLUMNS}`,
      [c.brandId, c.issuer, c.clientId, c.allowedDomains, c.enabled],
    );
    return r.rows[0]!;
  }
  const r = await db.query<SsoConnectionRow>(
    `insert into sso_connections
       (brand_id, issuer, client_id, client_secret_ciphertext, client_secret_key_id,
        allowed_domains, enabled)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (brand_id) do update set
       provider_set_at = ${PROVIDER_SET_AT},
       issuer = excluded.issuer, client_id = excluded.client_id,
       client_secret_ciphertext = excluded.client_secret_ciphertext,
       client_secret_key_id = excluded.client_secret_key_id,
       allowed_domains = excluded.allowed_domains, enabled = excluded.enabled,
       updated_at = now()
     returning ${COLUMNS}`,
    [
      c.brandId,
      c.issuer,
      c.clientId,
      c.secret.ciphertext,
      c.secret.keyId,
      c.allowedDomains,
      c.enabled,
    ],
  );
  return r.rows[0]!;
}

/**
 * Locks the brand's connection row and answers its updated_at (undefined: none), to check that
 * the row a save was decided on is still the one stored.
 */
export async function lockSsoConnection(db: Db, brandId: string): Promise<string | undefined> {
  const r = await db.query<{ updated_at: string }>(
    `select ${rfc3339('updated_at')} as updated_at from sso_connections
      where brand_id = $1 for update`,
    [brandId],
  );
  return r.rows[0]?.updated_at;
}

export async function deleteSsoConnection(db: Db, brandId: string): Promise<boolean> {
  const r = await db.query(`delete from sso_connections where brand_id = $1`, [brandId]);
  return (r.rowCount ?? 0) > 0;
}
