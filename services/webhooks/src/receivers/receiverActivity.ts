import { insertActivity, type Auditor } from '@brand/shared/activity';
import type { PoolClient } from '@brand/shared/db';

/**
 * The actor of changes the service makes by itself (a scheduled secret switch coming due,
 * disabling a failing receiver): no member, and a name people read in the activity log.
 */
export const SERVICE_AUDITOR: Auditor = { memberId: '', email: 'webhooks service' };

/** Writes one activity entry about a receiver, in the caller's transaction. */
export function recordReceiverActivity(
  db: PoolClient,
  audit: Auditor,
  receiver: { id: string; brand_id: string },
  action: string,
  summary: string,
): Promise<void> {
  return insertActivity(db, {
    brandId: receiver.brand_id,
    action,
    actorMemberId: audit.memberId,
    actorEmail: audit.email,
    subjectId: receiver.id,
    summary,
  });
}
