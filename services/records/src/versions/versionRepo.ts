import type { Pool, PoolClient } from '@brand/shared/db';
import type { ChangeVersion } from '@brand/shared/changeVersions';
import type { ResourceName } from '@brand/shared/resources';

/**
 * The brand's change version of a resource (migration 0007: the sum of its shard counters),
 * '0' when nothing of it was ever written. Read before the page it labels: read after, it
 * could claim a change the page does not hold, and a client holding that page would then get
 * 304 for the change.
 */
export async function selectChangeVersion(
  pool: Pool,
  brandId: string,
  resource: ResourceName,
): Promise<string> {
  const { rows } = await pool.query<{ version: string }>({
    name: 'records_change_version',
    text: `select coalesce(sum(version), 0)::bigint as version from change_versions
           where brand_id = $1 and resource = $2`,
    values: [brandId, resource],
  });
  return rows[0]?.version ?? '0';
}

/** The current versions of a brand's resources, for publishing after a write commits. */
export async function selectBrandVersions(
  db: Pool | PoolClient,
  brandId: string,
  resources: readonly ResourceName[],
): Promise<ChangeVersion[]> {
  const { rows } = await db.query<{ resource: string; version: string }>(
    `select resource, sum(version)::bigint as version from change_versions
     where brand_id = $1 and resource = any($2)
     group by resource`,
    [brandId, resources],
  );
  return rows.map((r) => ({ brandId, resource: r.resource, version: r.version }));
}

/**
 * Versions changed within the last `seconds` (the sweep's re-publish; change_versions_changed_idx),
 * at most `max` of them, most recent first.
 */
export async function selectRecentVersions(
  pool: Pool,
  seconds: number,
  max: number,
): Promise<ChangeVersion[]> {
  const { rows } = await pool.query<{ brand_id: string; resource: string; version: string }>(
    `select brand_id, resource, sum(version)::bigint as version from change_versions
     where (brand_id, resource) in (
       select brand_id, resource from change_versions
       where changed_at > now() - make_interval(secs => $1))
     group by brand_id, resource
     order by max(changed_at) desc
     limit $2`,
    [seconds, max],
  );
  return rows.map((r) => ({ brandId: r.brand_id, resource: r.resource, version: r.version }));
}
