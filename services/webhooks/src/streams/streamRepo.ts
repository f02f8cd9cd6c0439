import { rfc3339, type Pool, type PoolClient } from '@brand/shared/db';
import type { StreamKind, StreamOptions } from '@brand/shared/webhooks';
import { setAsideCount } from './setAside';

type Db = Pool | PoolClient;

/** An audit stream as the RPCs show it (never its token or secret). */
export interface StreamRow {
  id: string;
  brand_id: string;
  kind: StreamKind;
  label: string;
  url: string;
  options: StreamOptions;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_by_service: boolean;
  created_at: string;
  created_by: string;
  last_status: number | null;
  last_delivery_at: string | null;
  failure_count: number;
  failing_since: string | null;
  last_error: string | null;
  started_after: number;
  delivered_through: number;
  head: number;
  /** When the oldest entry it was not sent yet was stored; null when none waits. */
  oldest_waiting_at: string | null;
  /** Entries set aside and not sent since, within the delivery history: a resend sends them. */
  set_aside: number;
  /** When its settings last changed (its deliveries leave it): a change's precondition. */
  updated_at: string;
}

/** A stream's columns; `historyMs`, the parameter holding DELIVERY_HISTORY_RETENTION_MS. */
const columns = (
  historyMs: string,
) => `r.id, r.brand_id, r.kind, r.label, r.url, r.stream_options as options, r.enabled,
  r.disabled_reason, r.disabled_by_service, ${rfc3339('r.created_at')} as created_at, r.created_by,
  r.last_status, ${rfc3339('r.last_delivery_at')} as last_delivery_at, r.failure_count,
  ${rfc3339('r.failing_since')} as failing_since, r.last_error,
  r.stream_started_after::float8 as started_after,
  r.stream_delivered_through::float8 as delivered_through,
  coalesce((select h.last_seq from audit_heads h where h.brand_id = r.brand_id), 0)::float8 as head,
  (select ${rfc3339('e.received_at')} from audit_entries e
   where e.brand_id = r.brand_id and e.seq = r.stream_delivered_through + 1) as oldest_waiting_at,
  ${setAsideCount(historyMs)} as set_aside, ${rfc3339('r.updated_at')} as updated_at`;

/**
 * A new stream: a receivers row of its kind that subscribes to no event, sent from the brand's
 * head on (what is stored from now). Its token, API key or signing secret is sealed by the
 * caller, bound to its id.
 */
export async function insertStream(
  db: PoolClient,
  s: {
    id: string;
    brandId: string;
    kind: StreamKind;
    label: string;
    url: string;
    options: StreamOptions;
    ciphertext: Buffer;
    keyId: string;
    createdBy: string;
  },
): Promise<StreamRow> {
  await db.query(
    `insert into receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id,
       created_by, kind, stream_options, stream_started_after, stream_delivered_through)
     select $1, $2, $3, $4, '{}', $5, $6, $7, $8, $9, h.at, h.at
     from (select coalesce((select last_seq from audit_heads where brand_id = $2), 0) as at) h`,
    [
      s.id,
      s.brandId,
      s.url,
      s.label,
      s.ciphertext,
      s.keyId,
      s.createdBy,
      s.kind,
      JSON.stringify(s.options),
    ],
  );
  return (await selectStream(db, s.id, 0))!; // a new stream has set nothing aside
}

/** The stream `id`, its set-aside entries counted within `historyMs` (the history kept). */
export async function selectStream(
  db: Db,
  id: string,
  historyMs: number,
): Promise<StreamRow | undefined> {
  const res = await db.query<StreamRow>(
    `select ${columns('$2')} from receivers r where r.id = $1 and r.kind <> 'webhook'`,
    [id, historyMs],
  );
  return res.rows[0];
}

/** A brand's streams, newest first. */
export async function selectStreams(
  db: Db,
  brandId: string,
  historyMs: number,
): Promise<StreamRow[]> {
  const res = await db.query<StreamRow>(
    `select ${columns('$2')} from receivers r where r.brand_id = $1 and r.kind <> 'webhook'
     order by r.created_at desc, r.id desc`,
    [brandId, historyMs],
  );
  return res.rows;
}

export async function countStreams(db: Db, brandId: string): Promise<number> {
  const res = await db.query<{ n: number }>(
    `select count(*)::int as n from receivers where brand_id = $1 and kind <> 'webhook'`,
    [brandId],
  );
  return res.rows[0]!.n;
}

/**
 * Sets what is given: label, URL, options, a new sealed token. Enabling is updateReceiver's
 * (the engine's one place for it); this changes the destination only. `onto`, the destination
 * the change was decided on, is required to be the stream's still (in the one statement, which
 * waits for a save in flight and then reads its result): false, and nothing written, when it
 * moved meanwhile. So is `ifUpdatedAt`, the stream's updated_at the caller decided on: false when
 * the stream changed at all since.
 */
export async function updateStreamDestination(
  db: PoolClient,
  id: string,
  changes: {
    label?: string;
    url?: string;
    options?: StreamOptions;
    sealed?: { ciphertext: Buffer; keyId: string };
  },
  onto?: { url: string; options: StreamOptions },
  ifUpdatedAt?: string,
): Promise<boolean> {
  const res = await db.query(
    `update receivers set
       label = coalesce($2::text, label),
       url = coalesce($3::text, url),
       stream_options = coalesce($4::jsonb, stream_options),
       secret_ciphertext = coalesce($5::bytea, secret_ciphertext),
       secret_key_id = coalesce($6::text, secret_key_id),
       updated_at = now()
     where id = $1 and kind <> 'webhook'
       and ($7::text is null or (url = $7::text and stream_options = $8::jsonb))
       and ($9::text is null or ${rfc3339('updated_at')} = $9::text)`,
    [
      id,
      changes.label ?? null,
      changes.url ?? null,
      changes.options ? JSON.stringify(changes.options) : null,
      changes.sealed?.ciphertext ?? null,
      changes.sealed?.keyId ?? null,
      onto?.url ?? null,
      onto ? JSON.stringify(onto.options) : null,
      ifUpdatedAt ?? null,
    ],
  );
  return (res.rowCount ?? 0) > 0;
}
