import type { PoolClient } from '@brand/shared/db';
import { RESOURCE_TABLES } from '../records/resourceTables';
import { SELECT_LISTS, toRecordRow, type RecordRow } from '../records/recordRepo';

/** The resources a business change applies to. */
export type ChangedResource = 'submissions' | 'payouts' | 'campaigns';

/** What a change needs to know before deciding: the owner brand and the current status. */
export interface LockedRow {
  brand_id: string;
  status: string;
}

const toRow = (resource: ChangedResource, row: Record<string, unknown> | undefined): RecordRow => {
  if (!row) throw new Error(`update of a locked ${resource} row returned nothing`);
  return toRecordRow(row, RESOURCE_TABLES[resource].columns);
};

/**
 * Locks a submission for the rest of the transaction (a concurrent change of the same
 * row waits, then sees the new status). Undefined when no submission has this id.
 */
export async function lockSubmission(
  client: PoolClient,
  id: string,
): Promise<LockedRow | undefined> {
  const res = await client.query<LockedRow>(
    'select brand_id, status from submissions where id = $1 for update',
    [id],
  );
  return res.rows[0];
}

/** Sets a locked submission's review outcome; returns it as the API lists it. */
export async function markSubmissionReviewed(
  client: PoolClient,
  change: { id: string; status: 'approved' | 'rejected'; rejectionReason: string | null },
): Promise<RecordRow> {
  const res = await client.query<Record<string, unknown>>(
    `update submissions
     set status = $2, rejection_reason = $3, reviewed_at = now(), updated_at = now()
     where id = $1
     returning ${SELECT_LISTS.submissions}`,
    [change.id, change.status, change.rejectionReason],
  );
  return toRow('submissions', res.rows[0]);
}

/** Locks a payout (see lockSubmission). */
export async function lockPayout(client: PoolClient, id: string): Promise<LockedRow | undefined> {
  const res = await client.query<LockedRow>(
    'select brand_id, status from payouts where id = $1 for update',
    [id],
  );
  return res.rows[0];
}

/** Marks a locked payout paid; returns it as the API lists it. */
export async function markPayoutPaid(client: PoolClient, id: string): Promise<RecordRow> {
  const res = await client.query<Record<string, unknown>>(
    `update payouts
     set status = 'paid', paid_at = now(), updated_at = now()
     where id = $1
     returning ${SELECT_LISTS.payouts}`,
    [id],
  );
  return toRow('payouts', res.rows[0]);
}

/** Locks a campaign (see lockSubmission). */
export async function lockCampaign(client: PoolClient, id: string): Promise<LockedRow | undefined> {
  const res = await client.query<LockedRow>(
    'select brand_id, status from campaigns where id = $1 for update',
    [id],
  );
  return res.rows[0];
}

/** Marks a locked campaign settled; returns it as the API lists it. */
export async function markCampaignSettled(client: PoolClient, id: string): Promise<RecordRow> {
  const res = await client.query<Record<string, unknown>>(
    `update campaigns
     set status = 'settled', settled_at = now(), updated_at = now()
     where id = $1
     returning ${SELECT_LISTS.campaigns}`,
    [id],
  );
  return toRow('campaigns', res.rows[0]);
}
