/** The Redis key of a brand's resource version, without the deployment's key prefix. */
export function changeVersionKey(brandId: string, resource: string): string {
  return `rv:${brandId}:${resource}`;
}

/**
 * Kept a week: a brand that stops changing keeps its key while polled (each full page a
 * gateway serves after a miss writes it back), and a deleted brand's keys go away.
 */
export const CHANGE_VERSION_TTL_SECONDS = 7 * 24 * 3600;

export interface ChangeVersion {
  brandId: string;
  resource: string;
  /** A decimal integer, as PostgreSQL's bigint arrives. */
  version: string;
}
