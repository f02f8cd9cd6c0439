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
 * A rolled key's networks for its replacement, read again by today's rules (readNetworks): a
 * roll creates a key, and a list stored before a rule existed (a list covering all of IPv4,
 * refused since 1e025b6, or more than a /8's worth of it, refused since the review of
 * 2026-11-30) would otherwise live on in every replacement, satisfying the brand's policy while
 * binding nothing. A list refused is precondition_failed naming the fix: the owner sets the
 * key's networks (one step, the same owner) and rolls again. The roll is refused rather than
 * carried out with the list (it would keep the policy hollow) or with no list (the owner would
 * get a key open to any network without asking for one). An owner rotating a leaked key is not
 * locked out: expiring or revoking the old key needs no change of networks.
 */
export function networksForRoll(stored: readonly string[], keyName: string): string[] {
  const read = readNetworks(stored);
  if (!('error' in read)) return read.networks;
  throw new AppError(
    'precondition_failed',
    `Cannot roll ${keyName}: its allowed networks are refused by today's rules (${read.error.replace(/\.$/, '')}); set its networks (Networks… in the console, or brandctl key networks --set) and roll it again. Expiring or revoking the key needs no change.`,
    { details: [{ field: 'allowed_networks', message: read.error }] },
  );
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
