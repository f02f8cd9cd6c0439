import { authorize, type Actor, type ConsoleAction } from '@brand/shared/console';
import type { Pool } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { getDelivery, type DeliveryView } from '../log/deliveryService';
import type { ReceiverRow } from '../receivers/receiverRepo';
import { getReceiver } from '../receivers/receiverService';

/**
 * The console's brand isolation and permissions for this service's resources: every lookup
 * by id checks the caller against the resource's own brand, and another brand's resource
 * is refused exactly as a missing one (not_found, the same message), never with a 403
 * that would confirm it exists.
 */
export function authorizeBrand(actor: Actor, action: ConsoleAction, brandId: string): void {
  authorize(actor, action, brandId, () => new AppError('not_found', `No brand ${brandId}.`));
}

export async function authorizedReceiver(
  pool: Pool,
  actor: Actor,
  action: ConsoleAction,
  receiverId: string,
): Promise<ReceiverRow> {
  const receiver = await getReceiver({ pool }, receiverId);
  authorize(actor, action, receiver.brand_id, () => {
    return new AppError('not_found', `No receiver ${receiverId}.`);
  });
  return receiver;
}

export async function authorizedDelivery(
  pool: Pool,
  actor: Actor,
  action: ConsoleAction,
  deliveryId: string,
): Promise<DeliveryView> {
  const delivery = await getDelivery(pool, deliveryId);
  authorize(actor, action, delivery.brand_id, () => {
    return new AppError('not_found', `No delivery ${deliveryId}.`);
  });
  return delivery;
}
