import { z } from 'zod';
import { isStorableText, storableTextRefusal } from '@brand/shared/text';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import type { ChangeVersion } from '@brand/shared/changeVersions';
import type { EventTypeName } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { idPrefix, newId, type IdKind } from '@brand/shared/ids';
import type { RecordRow } from '../records/recordRepo';
import { RESOURCE_TABLES } from '../records/resourceTables';
import { insertOutboxEvent } from '../outbox/outboxRepo';
import { selectBrandVersions } from '../versions/versionRepo';
import {
  lockCampaign,
  lockPayout,
  lockSubmission,
  markCampaignSettled,
  markPayoutPaid,
  markSubmissionReviewed,
  type ChangedResource,
  type LockedRow,
} from './changeRepo';

/** A committed business change: the record as it now reads, and the event it produced. */
export interface ChangeResult {
  record: RecordRow;
  eventId: string;
  /**
   * The changed resource's version as the commit left it (read on the same connection right
   * after the commit), for publishing; empty when that read failed (the sweep publishes it).
   */
  versions: ChangeVersion[];
}

/** The longest rejection reason accepted; it is shown to the creator, so it stays short. */
const MAX_REJECTION_REASON = 500;

/** One transition: which statuses it leaves, which event it emits, and how it locks and writes. */
interface Transition {
  resource: ChangedResource;
  noun: string;
  idKind: IdKind;
  idField: string;
  /** Statuses the record may be in; anything else is precondition_failed. */
  from: readonly string[];
  to: string;
  event: EventTypeName;
  lock: (client: PoolClient, id: string) => Promise<LockedRow | undefined>;
  write: (client: PoolClient, id: string) => Promise<RecordRow>;
}

/**
 * The most a change's event may carry as its record's JSON (BusinessEvent.object_json), in
 * UTF-8 bytes: 512 KiB, half Kafka's default message.max.bytes (1 MiB + 12), so the envelope,
 * headers and record batch framing always fit beside it. Record text has no length limit of its
 * own; a change whose event would be larger is refused (precondition_failed) rather than
 * accepted and then set aside by the relay (docs/operating.md, BrandRecordsOutboxEventsSetAside).
 */
const MAX_EVENT_OBJECT_BYTES = 512 * 1024;

/**
 * Applies a transition in ONE transaction: lock the row (`for update`, so concurrent
 * changes of one record serialise and the loser sees the new status), check the status,
 * write the new state, and insert the outbox event with an id minted here. Either both the
 * change and its event commit or neither does. not_found for an unknown id,
 * validation_failed for an id of the wrong shape, precondition_failed (naming the current
 * status) for a repeated or invalid transition, and precondition_failed for a record whose
 * event would be over MAX_EVENT_OBJECT_BYTES (nothing is written).
 */
async function applyTransition(pool: Pool, t: Transition, id: string): Promise<ChangeResult> {
  const idPattern = new RegExp(`^${idPrefix(t.idKind)}[A-Za-z0-9]{1,64}$`);
  if (!idPattern.test(id)) {
    const message = `must be a ${t.noun} id (${idPrefix(t.idKind)}...)`;
    throw new AppError('validation_failed', `${t.idField}: ${message}`, {
      details: [{ field: t.idField, message }],
    });
  }
  let brandId = '';
  const versions: ChangeVersion[] = [];
  const change = await withTransaction(
    pool,
    async (client) => {
      const locked = await t.lock(client, id);
      if (!locked) throw new AppError('not_found', `No ${t.noun} ${id}.`);
      if (!t.from.includes(locked.status)) {
        const already = locked.status === t.to ? ' already' : '';
        throw new AppError(
          'precondition_failed',
          `${capitalise(t.noun)} ${id} is${already} ${locked.status}; only a ${t.from.join(' or ')} ${t.noun} can become ${t.to}.`,
        );
      }
      const record = await t.write(client, id);
      const payload = eventObjectJson(t.resource, record);
      const bytes = Buffer.byteLength(payload, 'utf8');
      if (bytes > MAX_EVENT_OBJECT_BYTES)
        // refused before the commit: a change whose event Kafka could never take is not accepted
        throw new AppError(
          'precondition_failed',
          `${capitalise(t.noun)} ${id} is too large to publish as an event (${bytes} bytes of JSON; at most ${MAX_EVENT_OBJECT_BYTES}); shorten its text fields first.`,
        );
      const eventId = newId('event');
      await insertOutboxEvent(client, {
        id: eventId,
        brandId: locked.brand_id,
        type: t.event,
        payload,
      });
      brandId = locked.brand_id;
      return { record, eventId };
    },
    // after the commit, on the same connection: no second wait for the pool per change
    async (client) => {
      versions.push(...(await selectBrandVersions(client, brandId, [t.resource]).catch(() => [])));
    },
  );
  return { ...change, versions };
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * BusinessEvent.object_json: "resource" first, then every public field of the record in the
 * read API's order, absent values as null (as the REST API renders them), so receivers see
 * one stable shape. Records hold no private creator details beyond a handle, and no secrets.
 */
function eventObjectJson(resource: ChangedResource, record: RecordRow): string {
  const object: Record<string, unknown> = { resource };
  for (const column of Object.keys(RESOURCE_TABLES[resource].columns)) {
    object[column] = record[column] ?? null;
  }
  return JSON.stringify(object);
}

/** What approving and rejecting share: both review a pending submission. */
const SUBMISSION_REVIEW = {
  resource: 'submissions',
  noun: 'submission',
  idKind: 'submission',
  idField: 'submission_id',
  from: ['pending'],
  lock: lockSubmission,
} as const;

/** Approves a pending submission (event submission.approved). Errors: see applyTransition. */
export function approveSubmission(pool: Pool, submissionId: string): Promise<ChangeResult> {
  return applyTransition(
    pool,
    {
      ...SUBMISSION_REVIEW,
      to: 'approved',
      event: 'submission.approved',
      write: (client, id) =>
        markSubmissionReviewed(client, { id, status: 'approved', rejectionReason: null }),
    },
    submissionId,
  );
}

const RejectInput = z.object({
  reason: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(MAX_REJECTION_REASON, `must be at most ${MAX_REJECTION_REASON} characters`)
    // PostgreSQL text cannot hold NUL (it would be a 500), and a reason shown to creators
    // has no use for other control characters; line breaks and tabs are fine.
    .refine(isStorableText, { error: (issue) => storableTextRefusal(String(issue.input)) }),
});

/**
 * Rejects a pending submission with a reason (event submission.rejected). validation_failed
 * for a missing, blank or over-long reason; other errors: see applyTransition.
 */
export function rejectSubmission(
  pool: Pool,
  submissionId: string,
  reason: string,
): Promise<ChangeResult> {
  const input = parseOrThrow(RejectInput, { reason });
  return applyTransition(
    pool,
    {
      ...SUBMISSION_REVIEW,
      to: 'rejected',
      event: 'submission.rejected',
      write: (client, id) =>
        markSubmissionReviewed(client, { id, status: 'rejected', rejectionReason: input.reason }),
    },
    submissionId,
  );
}

/**
 * Marks a pending or processing payout paid (event payout.paid). A failed payout must be
 * retried by the payments team before it can be paid. Errors: see applyTransition.
 */
export function payPayout(pool: Pool, payoutId: string): Promise<ChangeResult> {
  return applyTransition(
    pool,
    {
      resource: 'payouts',
      noun: 'payout',
      idKind: 'payout',
      idField: 'payout_id',
      from: ['pending', 'processing'],
      to: 'paid',
      event: 'payout.paid',
      lock: lockPayout,
      write: markPayoutPaid,
    },
    payoutId,
  );
}

/**
 * Settles a completed campaign (event campaign.settled). Only "completed" qualifies: an
 * active or paused campaign may still receive submissions and owe payouts, and a draft
 * never ran, so settling them would close books that are still open (docs/webhooks.md "Business
 * changes and events"). Errors: see applyTransition.
 */
export function settleCampaign(pool: Pool, campaignId: string): Promise<ChangeResult> {
  return applyTransition(
    pool,
    {
      resource: 'campaigns',
      noun: 'campaign',
      idKind: 'campaign',
      idField: 'campaign_id',
      from: ['completed'],
      to: 'settled',
      event: 'campaign.settled',
      lock: lockCampaign,
      write: markCampaignSettled,
    },
    campaignId,
  );
}
