import type { Pool } from '@brand/shared/db';

/** What one page of the audit log asks for (auditLogService.ts checks it). */
export interface AuditPageQuery {
  brandId: string;
  limit: number;
  /** Only entries of this kind. */
  kind: 'activity' | 'request' | undefined;
  /** Newest first below `before` (none: from the newest), or oldest first above `after`. */
  direction: { before: number | undefined } | { after: number };
}

/**
 * One page of a brand's audit log with its head, read in ONE statement (one snapshot): the
 * head names positions whose entries are all committed (migration 0016), so a reader that has
 * read up to the head has read every entry there is. Walks (brand_id, seq), or (brand_id, kind,
 * seq) with a kind, from the cursor: never OFFSET.
 */
export async function selectAuditPage(
  pool: Pool,
  q: AuditPageQuery,
): Promise<{ head: number; entries: Array<{ seq: number; entry_json: string }> }> {
  const values: unknown[] = [q.brandId, q.limit];
  const where = ['e.brand_id = $1'];
  if (q.kind) where.push(`e.kind = $${values.push(q.kind)}`);
  let order: string;
  if ('after' in q.direction) {
    where.push(`e.seq > $${values.push(q.direction.after)}`);
    order = 'e.seq';
  } else {
    if (q.direction.before !== undefined) where.push(`e.seq < $${values.push(q.direction.before)}`);
    order = 'e.seq desc';
  }
  const res = await pool.query<{ head: string; seq: string | null; entry_json: string | null }>(
    `select coalesce((select last_seq from audit_heads where brand_id = $1), 0) as head,
       p.seq, p.entry_json
     from (select 1) one left join lateral (
       select e.seq, e.entry_json from audit_entries e
       where ${where.join(' and ')} order by ${order} limit $2
     ) p on true`,
    values,
  );
  return {
    head: Number(res.rows[0]?.head ?? 0),
    entries: res.rows
      .filter((r) => r.seq !== null)
      .map((r) => ({ seq: Number(r.seq), entry_json: r.entry_json! })),
  };
}
