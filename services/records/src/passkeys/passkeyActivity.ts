import { insertActivity } from '@brand/shared/activity';
import type { PoolClient } from '@brand/shared/db';
import { selectMemberships } from '../access/memberRepo';

/**
 * A passkey added or removed goes into the activity of every brand the address is a member
 * of: owners see a new way into their brand appear.
 */
export async function recordPasskeyChange(
  db: PoolClient,
  email: string,
  change: { action: 'member.passkey_added' | 'member.passkey_removed'; passkeyName: string },
): Promise<void> {
  const verb = change.action === 'member.passkey_added' ? 'added' : 'removed';
  for (const { member } of await selectMemberships(db, email)) {
    await insertActivity(db, {
      brandId: member.brand_id,
      action: change.action,
      actorMemberId: member.id,
      actorEmail: member.email,
      subjectId: member.id,
      summary: `${member.email} ${verb} the passkey “${change.passkeyName}”`,
    });
  }
}
