import type { PoolClient } from '@brand/shared/db';
import type { RenderedEntry } from './entryJson';

/**
 * Stores entries not stored yet (by id), each brand's numbered after its head in the order
 * given. First the batch's brands' head rows are locked, in brand order (two batches never
 * wait on each other crosswise), and held until the caller commits, so positions are handed out
 * in commit order (migration 0016). Then ONE statement, whose snapshot is taken after those
 * locks: an entry a racing hand-over of the same brand stored is seen as stored and skipped.
 * (One statement alone read "not stored" before it waited on the lock, and then failed on the
 * unique id once the other committed.) Returns how many were new, by brand.
 */
export async function insertAuditEntries(
  db: PoolClient,
  entries: readonly RenderedEntry[],
): Promise<Map<string, number>> {
  const brands = [...new Set(entries.map((e) => e.brandId))].sort();
  await db.query({
    name: 'webhooks.lock-audit-heads',
    // an upsert locks each head row, a new one as it inserts it; a no-op update so that it does
    text: `insert into audit_heads as h (brand_id, last_seq)
     select b, 0 from unnest($1::text[]) as b order by b
     on conflict (brand_id) do update set last_seq = h.last_seq`,
    values: [brands],
  });
  const res = await db.query<{ brand_id: string; stored: number }>({
    name: 'webhooks.insert-audit-entries',
    text: `with input as (
       select * from json_to_recordset($1::json)
         as i(ord int, id text, brand_id text, kind text, created_at timestamptz, body text)
     ), fresh as (
       select i.* from input i where not exists (select 1 from audit_entries e where e.id = i.id)
     ), counts as (
       select brand_id, count(*)::bigint as n from fresh group by brand_id
     ), heads as (
       insert into audit_heads as h (brand_id, last_seq)
       select brand_id, n from counts
       on conflict (brand_id) do update set last_seq = h.last_seq + excluded.last_seq
       returning h.brand_id, h.last_seq
     ), numbered as (
       select f.*, heads.last_seq - counts.n
                   + row_number() over (partition by f.brand_id order by f.ord) as seq
       from fresh f join counts using (brand_id) join heads using (brand_id)
     ), stored as (
       insert into audit_entries (brand_id, seq, id, kind, created_at, entry_json)
       select brand_id, seq, id, kind, created_at, body from numbered
       returning brand_id
     )
     select brand_id, count(*)::int as stored from stored group by brand_id`,
    values: [
      JSON.stringify(
        entries.map((e, ord) => ({
          ord,
          id: e.id,
          brand_id: e.brandId,
          kind: e.kind,
          created_at: e.createdAt,
          body: e.json,
        })),
      ),
    ],
  });
  return new Map(res.rows.map((r) => [r.brand_id, r.stored]));
}
