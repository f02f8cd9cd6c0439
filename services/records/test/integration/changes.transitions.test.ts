// The business changes (approve or reject a submission, pay a payout, settle a campaign) over gRPC,
// against a real records process and PostgreSQL. Each allowed transition commits the new state and
// exactly one outbox row together; every refusal (invalid or repeated transition, unknown id,
// missing reason) is a clear 4xx and writes nothing. The relay is off here (no KAFKA_BROKERS), so
// outbox rows stay for inspection.
import {
  API_TIMESTAMP,
  makeRecords,
  startStack,
  type Stack,
  makePendingSubmissions,
} from '@brand/testkit';
import { asEventObject } from './eventTopic';

let stack: Stack;
let brandId: string;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  brandId = (await stack.admin.createBrand()).brand.id;
});
afterAll(() => stack?.close());

interface OutboxRow {
  id: string;
  brand_id: string;
  type: string;
  payload: Record<string, unknown>;
  created_at: string;
  published_at: string | null;
}

async function outboxRows(eventId?: string): Promise<OutboxRow[]> {
  const { rows } = await stack.db.pool.query<OutboxRow>(
    `select id, brand_id, type, payload,
       to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at,
       published_at
     from records.outbox where $1::text is null or id = $1 order by seq`,
    [eventId ?? null],
  );
  return rows;
}

const call = <M extends Parameters<Stack['admin']['records']>[0]>(
  method: M,
  req: Parameters<Stack['admin']['records']>[1],
) => stack.admin.records(method, req as never);

/** The outcome of a refused call: its code and message. */
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'ok', message: '' }),
    (err: { code: string; message: string }) => ({ code: err.code, message: err.message }),
  );

describe('ApproveSubmission', () => {
  it('approves a pending submission and commits one outbox event with it', async () => {
    const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
    const res = await stack.admin.records('approveSubmission', { submission_id: sub!.id });
    expect(res.event_id).toMatch(/^evt_[A-Za-z0-9]{20}$/);
    expect(res.submission).toMatchObject({
      id: sub!.id,
      status: 'approved',
      creator_handle: sub!.creator_handle,
      reviewed_at: expect.stringMatching(API_TIMESTAMP) as string,
    });
    expect(res.submission!.updated_at).toBe(res.submission!.reviewed_at);
    expect(res.submission!.rejection_reason).toBeUndefined();

    const [row] = await outboxRows(res.event_id);
    expect(row).toMatchObject({
      brand_id: brandId,
      type: 'submission.approved',
      published_at: null,
      created_at: res.submission!.updated_at,
    });
    // the record's public JSON, resource first, exactly the fields the API lists
    expect(Object.keys(row!.payload)[0]).toBe('resource');
    expect(row!.payload).toEqual(asEventObject('submissions', res.submission!));
    expect(row!.payload).toMatchObject({ rejection_reason: null });

    const listed = await stack.admin.listPageRecords({
      brand_id: brandId,
      resource: 'submissions',
    });
    const found = listed.records.find((r) => r.id === sub!.id);
    expect(found).toMatchObject({ status: 'approved' });
  });
});

describe('RejectSubmission', () => {
  it('rejects with the trimmed reason and commits submission.rejected', async () => {
    const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
    const res = await stack.admin.records('rejectSubmission', {
      submission_id: sub!.id,
      reason: '  Brand logo not visible  ',
    });
    expect(res.submission).toMatchObject({
      status: 'rejected',
      rejection_reason: 'Brand logo not visible',
    });
    const [row] = await outboxRows(res.event_id);
    expect(row).toMatchObject({ type: 'submission.rejected', brand_id: brandId });
    expect(row!.payload).toMatchObject({
      resource: 'submissions',
      id: sub!.id,
      status: 'rejected',
      rejection_reason: 'Brand logo not visible',
    });
  });

  it.each([
    ['missing', ''],
    ['blank', '   '],
    ['over 500 characters', 'x'.repeat(501)],
    ['NUL-carrying', 'Logo\u0000missing'],
    ['control-character', 'Logo\u001bmissing'],
    // C1 controls too (since 2026-11-30): NEL (U+0085) is no line break a reason may hold
    ['C1-control', 'Logo\u0085missing'],
  ])('refuses a %s reason with validation_failed and changes nothing', async (_c, reason) => {
    const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
    const before = (await outboxRows()).length;
    const r = await refusal(call('rejectSubmission', { submission_id: sub!.id, reason }));
    expect(r.code).toBe('validation_failed');
    expect(r.message).toMatch(/reason/);
    const { rows } = await stack.db.pool.query('select status from submissions where id = $1', [
      sub!.id,
    ]);
    expect(rows[0]).toEqual({ status: 'pending' });
    expect(await outboxRows()).toHaveLength(before);
  });
});

describe('PayPayout', () => {
  it.each(['pending', 'processing'])('pays a %s payout', async (status) => {
    const [po] = await makeRecords(stack.db.pool, brandId, 'payouts', 1, () => ({ status }));
    const res = await stack.admin.records('payPayout', { payout_id: po!.id });
    expect(res.payout).toMatchObject({
      id: po!.id,
      status: 'paid',
      amount: po!.amount,
      paid_at: expect.stringMatching(API_TIMESTAMP) as string,
    });
    const [row] = await outboxRows(res.event_id);
    expect(row).toMatchObject({ type: 'payout.paid', brand_id: brandId });
    expect(row!.payload).toEqual(asEventObject('payouts', res.payout!));
  });
});

describe('SettleCampaign', () => {
  it('settles a completed campaign', async () => {
    const [cmp] = await makeRecords(stack.db.pool, brandId, 'campaigns', 1, () => ({
      status: 'completed',
    }));
    const res = await stack.admin.records('settleCampaign', { campaign_id: cmp!.id });
    expect(res.campaign).toMatchObject({
      id: cmp!.id,
      status: 'settled',
      settled_at: expect.stringMatching(API_TIMESTAMP) as string,
    });
    const [row] = await outboxRows(res.event_id);
    expect(row).toMatchObject({ type: 'campaign.settled', brand_id: brandId });
    expect(row!.payload).toEqual(asEventObject('campaigns', res.campaign!));
  });
});

describe('refusals write nothing', () => {
  let ids: Record<string, string>;

  beforeAll(async () => {
    const subs = await makeRecords(stack.db.pool, brandId, 'submissions', 2, (i) => ({
      status: ['approved', 'rejected'][i]!,
    }));
    const pos = await makeRecords(stack.db.pool, brandId, 'payouts', 2, (i) => ({
      status: ['paid', 'failed'][i]!,
    }));
    const cmps = await makeRecords(stack.db.pool, brandId, 'campaigns', 4, (i) => ({
      status: ['active', 'draft', 'paused', 'settled'][i]!,
    }));
    ids = {
      approved: subs.find((s) => s.status === 'approved')!.id,
      rejected: subs.find((s) => s.status === 'rejected')!.id,
      paid: pos.find((p) => p.status === 'paid')!.id,
      failed: pos.find((p) => p.status === 'failed')!.id,
      ...Object.fromEntries(cmps.map((c) => [`cmp_${c.status}`, c.id])),
    };
  });

  const cases: Array<[string, string, RegExp, (id: string) => Promise<unknown>]> = [
    [
      'approving an approved submission',
      'approved',
      /is already approved/,
      (id) => call('approveSubmission', { submission_id: id }),
    ],
    [
      'approving a rejected submission',
      'rejected',
      /is rejected; only a pending/,
      (id) => call('approveSubmission', { submission_id: id }),
    ],
    [
      'rejecting an approved submission',
      'approved',
      /is approved; only a pending/,
      (id) => call('rejectSubmission', { submission_id: id, reason: 'Too late' }),
    ],
    [
      'rejecting a rejected submission',
      'rejected',
      /is already rejected/,
      (id) => call('rejectSubmission', { submission_id: id, reason: 'Again' }),
    ],
    [
      'paying a paid payout',
      'paid',
      /is already paid/,
      (id) => call('payPayout', { payout_id: id }),
    ],
    [
      'paying a failed payout',
      'failed',
      /is failed; only a pending or processing/,
      (id) => call('payPayout', { payout_id: id }),
    ],
    [
      'settling an active campaign',
      'cmp_active',
      /is active; only a completed/,
      (id) => call('settleCampaign', { campaign_id: id }),
    ],
    [
      'settling a draft campaign',
      'cmp_draft',
      /is draft/,
      (id) => call('settleCampaign', { campaign_id: id }),
    ],
    [
      'settling a paused campaign',
      'cmp_paused',
      /is paused/,
      (id) => call('settleCampaign', { campaign_id: id }),
    ],
    [
      'settling a settled campaign',
      'cmp_settled',
      /is already settled/,
      (id) => call('settleCampaign', { campaign_id: id }),
    ],
  ];

  it.each(cases)('%s is precondition_failed naming the status', async (_c, which, message, run) => {
    const before = await outboxRows();
    const r = await refusal(run(ids[which]!));
    expect(r.code).toBe('precondition_failed');
    expect(r.message).toMatch(message);
    expect(await outboxRows()).toEqual(before);
  });

  it.each<[string, () => Promise<unknown>]>([
    ['submission', () => call('approveSubmission', { submission_id: 'sub_doesNotExist00000000' })],
    [
      'submission (reject)',
      () => call('rejectSubmission', { submission_id: 'sub_doesNotExist00000000', reason: 'x' }),
    ],
    ['payout', () => call('payPayout', { payout_id: 'po_doesNotExist00000000' })],
    ['campaign', () => call('settleCampaign', { campaign_id: 'cmp_doesNotExist00000000' })],
  ])('an unknown %s is not_found', async (_c, run) => {
    const r = await refusal(run());
    expect(r.code).toBe('not_found');
    expect(r.message).toMatch(/doesNotExist/);
  });

  it.each<[string, () => Promise<unknown>]>([
    ['empty submission id', () => call('approveSubmission', { submission_id: '' })],
    [
      'payout id given as submission id',
      () => call('approveSubmission', { submission_id: 'po_abc' }),
    ],
    ['campaign id with SQL', () => call('settleCampaign', { campaign_id: "cmp_x' or 1=1" })],
    ['submission id as payout id', () => call('payPayout', { payout_id: 'sub_abc' })],
  ])('a malformed id (%s) is validation_failed', async (_c, run) => {
    expect((await refusal(run())).code).toBe('validation_failed');
  });
});

describe('concurrency', () => {
  it('approves a submission once when two approvals race; one event', async () => {
    const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
    const results = await Promise.all([
      refusal(call('approveSubmission', { submission_id: sub!.id })),
      refusal(call('rejectSubmission', { submission_id: sub!.id, reason: 'Racing' })),
      refusal(call('approveSubmission', { submission_id: sub!.id })),
    ]);
    expect(results.filter((r) => r.code === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r.code === 'precondition_failed')).toHaveLength(2);
    const { rows } = await stack.db.pool.query(
      `select count(*)::int as n from records.outbox where payload->>'id' = $1`,
      [sub!.id],
    );
    expect(rows[0]).toEqual({ n: 1 });
  });
});
