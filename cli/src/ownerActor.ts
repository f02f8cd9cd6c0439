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
