import { z } from 'zod';
import type { Auditor } from '@brand/shared/activity';
import { withTransaction, type Pool } from '@brand/shared/db';
import { EVENT_TYPES } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import {
  countReceivers,
  deleteReceiver,
  DISABLED_BY_OWNER,
  failPendingDeliveries,
  failUnselectedDeliveries,
  insertReceiver,
  lockBrand,
  selectReceiver,
  selectReceivers,
  updateReceiver as updateReceiverRow,
  type ReceiverRow,
} from './receiverRepo';
import { recordReceiverActivity as record } from './receiverActivity';
import type { SecretBox } from '@brand/shared/secrets';
import { generateSigningSecret } from './newSigningSecret';
import { checkReceiverUrl, type Resolver } from '../egress/urlPolicy';
import { urlInTrail } from '../audit/urlInTrail';
import { label } from './receiverLabel';

export interface ReceiverDeps {
  pool: Pool;
  box: SecretBox;
  resolve: Resolver;
  allowLoopback: boolean;
  maxPerBrand: number;
}

const brandId = z.string().regex(/^br_[A-Za-z0-9]{1,64}$/, 'must be a brand id (br_...)');
const receiverId = z.string().regex(/^rcv_[A-Za-z0-9]{1,64}$/, 'must be a receiver id (rcv_...)');
const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');
const events = z
  .array(z.enum(EVENT_TYPES.names, { message: `must be one of ${EVENT_TYPES.names.join(', ')}` }))
  .min(1, `select at least one of ${EVENT_TYPES.names.join(', ')}`)
  .transform((list) => [...new Set(list)]);

const AddInput = z.object({
  brandId,
  url: z.string().min(1, 'is required'),
  label,
  events,
  actorEmail: email,
});

const notFound = (id: string): AppError => new AppError('not_found', `No receiver ${id}.`);

/**
 * Registers a receiver: validates the input and the URL rules (resolving the host), keeps
 * the brand under its maximum (an advisory lock serialises concurrent adds), seals a new
 * signing secret and returns it once. The actor is recorded for audit; the admin token is
 * the authority (this service cannot read the records service's members).
 */
export async function addReceiver(
  deps: ReceiverDeps,
  input: z.input<typeof AddInput>,
  audit: Auditor,
): Promise<{ receiver: ReceiverRow; secret: string }> {
  const v = parseOrThrow(AddInput, input);
  const url = await checkReceiverUrl(v.url, {
    allowLoopback: deps.allowLoopback,
    resolve: deps.resolve,
  });
  const id = newId('receiver');
  const secret = generateSigningSecret();
  const sealed = deps.box.seal(secret, id);
  const receiver = await withTransaction(deps.pool, async (db) => {
    await lockBrand(db, v.brandId);
    if ((await countReceivers(db, v.brandId)) >= deps.maxPerBrand) {
      throw new AppError(
        'receiver_limit',
        `Brand ${v.brandId} already has the maximum of ${deps.maxPerBrand} receivers; remove one first.`,
      );
    }
    const row = await insertReceiver(db, {
      id,
      brandId: v.brandId,
      url: url.toString(),
      label: v.label,
      events: v.events,
      ciphertext: sealed.ciphertext,
      keyId: sealed.keyId,
      createdBy: v.actorEmail,
    });
    await record(db, audit, row, 'receiver.added', `${row.label} (${urlInTrail(row.url)})`);
    return row;
  });
  return { receiver, secret };
}

export async function listReceivers(
  deps: ReceiverDeps,
  input: { brandId: string },
): Promise<ReceiverRow[]> {
  const v = parseOrThrow(z.object({ brandId }), input);
  return selectReceivers(deps.pool, v.brandId);
}

/** Loads a receiver or throws not_found. */
export async function getReceiver(deps: { pool: Pool }, id: string): Promise<ReceiverRow> {
  parseOrThrow(z.object({ receiverId }), { receiverId: id });
  const row = await selectReceiver(deps.pool, id);
  if (!row) throw notFound(id);
  return row;
}

const UpdateInput = z.object({
  receiverId,
  url: z.string().min(1, 'must not be empty').optional(),
  label: label.optional(),
  events: events.optional(),
  enabled: z.boolean().optional(),
  ifUpdatedAt: z.string().max(64).optional(),
});

/**
 * Changes the given fields; a new URL passes the URL rules first. Disabling fails the
 * receiver's pending deliveries visibly; enabling clears the disabled reason and streak. A new
 * selection of events fails, in the same transaction, the pending deliveries of the types it
 * no longer holds (TYPE_NOT_SELECTED, not counted against the receiver): the claim does not
 * look at types, so they would be sent, refused by the receiver, and counted as its failures.
 *
 * Given `ifUpdatedAt` (the receiver's updated_at as the change was decided on: the console reads
 * the receiver, then sends only what the owner changed), the change is written only onto that
 * receiver, compared under its row's lock at the write; one changed meanwhile is
 * precondition_failed. The console's read and this write are two calls: a change committing
 * between them (another owner's, brandctl's, the API's) was replaced unseen, a selection of events
 * replaced whole (a review of lost updates, 2026-12-01).
 */
export async function updateReceiver(
  deps: ReceiverDeps,
  input: z.input<typeof UpdateInput>,
  audit: Auditor,
): Promise<ReceiverRow> {
  const v = parseOrThrow(UpdateInput, input);
  const url =
    v.url === undefined
      ? undefined
      : (
          await checkReceiverUrl(v.url, {
            allowLoopback: deps.allowLoopback,
            resolve: deps.resolve,
          })
        ).toString();
  return withTransaction(deps.pool, async (db) => {
    const updated = await updateReceiverRow(
      db,
      v.receiverId,
      { url, label: v.label, events: v.events, enabled: v.enabled },
      v.ifUpdatedAt,
    );
    if (!updated) {
      const now = v.ifUpdatedAt === undefined ? undefined : await selectReceiver(db, v.receiverId);
      if (!now) throw notFound(v.receiverId);
      throw new AppError(
        'precondition_failed',
        `Receiver "${now.label}" was changed by someone else since this change was decided: reload it and save again.`,
      );
    }
    if (v.enabled === false) await failPendingDeliveries(db, updated.id, DISABLED_BY_OWNER);
    const unselected = v.events === undefined ? 0 : await failUnselectedDeliveries(db, updated.id);
    // what waits is counted again once those are failed
    const row = unselected === 0 ? updated : ((await selectReceiver(db, updated.id)) ?? updated);
    const failed =
      unselected === 0
        ? ''
        : `; ${unselected} waiting ${unselected === 1 ? 'delivery' : 'deliveries'} of types no longer selected failed`;
    await record(db, audit, row, 'receiver.changed', `${row.label}: ${describeChange(v)}${failed}`);
    return row;
  });
}

/** "url, events changed; disabled": what an update did, for the activity log. */
function describeChange(v: z.output<typeof UpdateInput>): string {
  const fields = (['url', 'label', 'events'] as const).filter((f) => v[f] !== undefined);
  const parts = fields.length > 0 ? [`${fields.join(', ')} changed`] : [];
  if (v.enabled !== undefined) parts.push(v.enabled ? 'enabled' : 'disabled');
  return parts.join('; ') || 'no change';
}

export async function removeReceiver(
  deps: ReceiverDeps,
  input: { receiverId: string },
  audit: Auditor,
): Promise<ReceiverRow> {
  const v = parseOrThrow(z.object({ receiverId }), input);
  return withTransaction(deps.pool, async (db) => {
    const row = await deleteReceiver(db, v.receiverId);
    if (!row) throw notFound(v.receiverId);
    await record(db, audit, row, 'receiver.removed', `${row.label} (${urlInTrail(row.url)})`);
    return row;
  });
}
