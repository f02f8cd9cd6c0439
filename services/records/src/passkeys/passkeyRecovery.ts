import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { withTransaction, type Pool } from '@brand/shared/db';
import { parseOrThrow } from '@brand/shared/errors';
import { email } from '../access/inputs';
import { selectMemberships } from '../access/memberRepo';
import { deletePasskeysOf, lockPasskeysOf } from './passkeyRepo';

const RemoveAddressPasskeysInput = z.object({
  email,
  actorEmail: z.string().trim().max(320),
});

/**
 * Removes every passkey of an address, for a person who lost the devices that hold them: an
 * operator's act (brandctl member remove-passkeys), after checking out of band who asks. The
 * person cannot do it from a session opened by an emailed link (passkeyService.removePasskey:
 * the mailbox alone must not swap a member's passkey for another), and could not add a new one
 * while the lost one is there. Each removal goes into the activity of every brand of the
 * address, naming the operator, as the person's own removals do. Answers how many it removed.
 */
export async function removeAddressPasskeys(
  pool: Pool,
  input: z.input<typeof RemoveAddressPasskeysInput>,
): Promise<number> {
  const v = parseOrThrow(RemoveAddressPasskeysInput, input);
  const actor = v.actorEmail || 'operator';
  return withTransaction(pool, async (db) => {
    await lockPasskeysOf(db, v.email);
    const names = await deletePasskeysOf(db, v.email);
    const memberships = await selectMemberships(db, v.email);
    for (const name of names) {
      for (const { member } of memberships) {
        await insertActivity(db, {
          brandId: member.brand_id,
          action: 'member.passkey_removed',
          actorMemberId: '',
          actorEmail: actor,
          subjectId: member.id,
          summary: `${actor} (an operator) removed the passkey “${name}” of ${member.email}`,
        });
      }
    }
    return names.length;
  });
}
