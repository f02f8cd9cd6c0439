import type { Pool, PoolClient } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { readNetworks } from '@brand/shared/keys';
import { selectKeyPolicy } from './keyNetworksRepo';

/**
 * The rules every writer of a key's networks follows (creating, rolling, setting them; issue
 * 63), apart from the services that call them so none of those import another.
 */

/** The networks of a request, canonical; validation_failed naming allowed_networks otherwise. */
export function requestedNetworks(given: readonly string[]): string[] {
  const read = readNetworks(given);
  if ('error' in read) {
    throw new AppError('validation_failed', `allowed_networks: ${read.error}`, {
      details: [{ field: 'allowed_networks', message: read.error }],
    });
  }
  return read.networks;
}

/**
 * key_networks_required when the brand requires networks of every new key and `networks` is
 * empty: `what` says which act was refused ("create a key", "roll …").
 */
export async function refuseOpenKeyByPolicy(
  db: Pool | PoolClient,
  brand: string,
  networks: readonly string[],
  what: string,
): Promise<void> {
  if (networks.length > 0 || !(await selectKeyPolicy(db, brand))) return;
  throw new AppError(
    'key_networks_required',
    `Cannot ${what}: this brand requires every new key to have allowed networks; give one or more (e.g. 203.0.113.0/24).`,
  );
}

/** How a list reads in the activity log: the networks, or "any network". */
export function networksInWords(networks: readonly string[]): string {
  if (networks.length === 0) return 'any network';
  const shown = networks.slice(0, 8).join(', ');
  return networks.length > 8 ? `${shown} and ${networks.length - 8} more` : shown;
}
