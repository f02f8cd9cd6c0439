import type {
  ListSubmissionsRequest,
  ListSubmissionsResponse,
  ApproveSubmissionRequest,
  ApproveSubmissionResponse,
  Campaign,
  PayPayoutRequest,
  PayPayoutResponse,
  Payout,
  RecordsServiceServer,
  RejectSubmissionRequest,
  RejectSubmissionResponse,
  SettleCampaignRequest,
  SettleCampaignResponse,
  Submission,
} from '@brand/proto/records/v1';
import type { Pool } from '@brand/shared/db';
import type { RpcBuilder } from '@brand/shared/grpc';
import type { RecordRow } from '../records/recordRepo';
import type { VersionPublisher } from '../versions/versionPublisher';
import {
  approveSubmission,
  payPayout,
  rejectSubmission,
  settleCampaign,
  type ChangeResult,
} from './changeService';
import { listSubmissions } from './submissionList';

// RecordRow's fields are exactly the proto message's (records/resourceTables.test.ts keeps
// them in step), so a changed record maps onto its message as is.
const asMessage = <M>(row: RecordRow): M => row as unknown as M;

/**
 * The business-change RPCs of RecordsService: admin only (brandctl), thin adapters. Each
 * answers after the changed resource's version is published (the gateway's ETag changes
 * before the caller learns the change is done).
 */
export function changeHandlers(
  deps: { pool: Pool; versions: VersionPublisher },
  rpc: RpcBuilder,
): Pick<
  RecordsServiceServer,
  'approveSubmission' | 'rejectSubmission' | 'payPayout' | 'settleCampaign' | 'listSubmissions'
> {
  const published = async (change: Promise<ChangeResult>): Promise<ChangeResult> => {
    const result = await change;
    await deps.versions.publish(result.versions);
    return result;
  };
  return {
    approveSubmission: rpc.admin<ApproveSubmissionRequest, ApproveSubmissionResponse>(
      'ApproveSubmission',
      async (req) => {
        const { record, eventId } = await published(
          approveSubmission(deps.pool, req.submission_id),
        );
        return { submission: asMessage<Submission>(record), event_id: eventId };
      },
    ),
    rejectSubmission: rpc.admin<RejectSubmissionRequest, RejectSubmissionResponse>(
      'RejectSubmission',
      async (req) => {
        const { record, eventId } = await published(
          rejectSubmission(deps.pool, req.submission_id, req.reason),
        );
        return { submission: asMessage<Submission>(record), event_id: eventId };
      },
    ),
    payPayout: rpc.admin<PayPayoutRequest, PayPayoutResponse>('PayPayout', async (req) => {
      const { record, eventId } = await published(payPayout(deps.pool, req.payout_id));
      return { payout: asMessage<Payout>(record), event_id: eventId };
    }),
    listSubmissions: rpc.admin<ListSubmissionsRequest, ListSubmissionsResponse>(
      'ListSubmissions',
      async (req) => {
        const page = await listSubmissions(deps.pool, {
          brandId: req.brand_id,
          status: req.status || undefined,
          limit: req.limit === 0 ? 50 : req.limit,
          cursor: req.cursor || undefined,
        });
        return {
          submissions: page.rows.map((r) => asMessage<Submission>(r)),
          next_cursor: page.nextCursor,
        };
      },
    ),
    settleCampaign: rpc.admin<SettleCampaignRequest, SettleCampaignResponse>(
      'SettleCampaign',
      async (req) => {
        const { record, eventId } = await published(settleCampaign(deps.pool, req.campaign_id));
        return { campaign: asMessage<Campaign>(record), event_id: eventId };
      },
    ),
  };
}
