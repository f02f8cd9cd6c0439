import { Role } from '@brand/proto/access/v1';
import { AppError } from '@brand/shared/errors';
import type { Backend } from './client';
import type { Settings } from './settings';
import { roleName } from './views';

/**
 * Refuses an `--actor` who is not an owner of the brand, with the words and code records uses
 * when `key create` names one (docs/contract.md#receivers: receivers are configured by an
 * owner). The admin token opens the webhooks service whoever is named, and webhooks keeps no
 * members, so brandctl asks records, which owns them, before it acts in the actor's name.
 */
export async function requireOwnerActor(
  backend: Backend,
  settings: Settings,
  brandId: string,
  email: string,
  doing: string,
): Promise<void> {
  let members;
  try {
    ({ members } = await backend.access('listMembers', { brand_id: brandId }));
  } catch (err) {
    if (err instanceof AppError && err.code === 'service_unavailable') {
      throw new AppError(
        'service_unavailable',
        `cannot reach the records service at ${settings.recordsAddr}, which says whether ${email} is an owner of ${brandId}; is it running? (npm run up)`,
      );
    }
    throw err;
  }
  const member = members.find((m) => m.email.toLowerCase() === email.trim().toLowerCase());
  if (member?.role === Role.ROLE_OWNER) return;
  const named = member
    ? `${email} is a brand ${roleName(member.role)}`
    : `${email} is not a member of this brand`;
  throw new AppError('insufficient_permission', `Only a brand owner can ${doing}: ${named}.`);
}

/**
 * The actor_email of a change brandctl makes in someone's name on a receiver or an audit stream:
 * '' without --actor (the service records "operator", as for any admin-token change), and with
 * one, the email once requireOwnerActor has found them an owner of the brand `brandOf` names (the
 * receiver's or the stream's: the commands name only its id). One path for every command that
 * records an actor, so none records a name nobody checked.
 */
export async function checkedActor(
  backend: Backend,
  settings: Settings,
  actor: string | undefined,
  brandOf: () => Promise<string>,
  doing: string,
): Promise<string> {
  if (actor === undefined) return '';
  await requireOwnerActor(backend, settings, await brandOf(), actor, doing);
  return actor;
}

/** The brand of a receiver, for checkedActor. */
export const receiverBrand = (backend: Backend, receiverId: string) => async (): Promise<string> =>
  (await backend.webhooks('getReceiver', { receiver_id: receiverId })).receiver?.brand_id ?? '';

/** The brand of an audit stream, for checkedActor. */
export const streamBrand = (backend: Backend, streamId: string) => async (): Promise<string> =>
  (await backend.auditStreams('getAuditStream', { stream_id: streamId, deliveries: 1 })).stream
    ?.brand_id ?? '';
