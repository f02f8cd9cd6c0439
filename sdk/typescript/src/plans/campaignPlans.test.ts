import { ConnectionError } from '../errors/brandRecordsError';
import {
  PendingPlanLimitError,
  RequestConflictError,
  ValidationFailedError,
} from '../errors/codeErrors';
import { errorBody, type StubAnswer } from '../testing/fetchStub';
import { testTransport } from '../testing/testTransport';
import { CampaignPlans, type CampaignPlanInput } from './campaignPlans';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const input: CampaignPlanInput = {
  title: 'Back-to-school launch',
  goal: 'Reach first-year students',
  campaign_type: 'ugc',
  planned_for: '2027-06-01',
  review_on: '2027-05-15',
  planning_budget: '25000.50',
};

const plan = (requestId: string) => ({
  id: 'pln_1',
  request_id: requestId,
  status: 'pending',
  review_path: '/workspaces/ugc/plans/pln_1/review',
});

/** Answers like the API: echoes the request's request_id. */
const created =
  (status = 201, headers: Record<string, string> = {}) =>
  (req: { body: unknown }): StubAnswer => ({
    status,
    body: plan((req.body as { request_id: string }).request_id),
    headers,
  });

describe('CampaignPlans.prepare', () => {
  it('mints a UUID request_id, posts the input, and returns the plan with replayed false', async () => {
    const { transport, requests } = testTransport(created());
    const result = await new CampaignPlans(transport).prepare(input);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST' });
    expect(requests[0]!.url.pathname).toBe('/api/v1/campaign-plans');
    const body = requests[0]!.body as Record<string, unknown>;
    expect(body.request_id).toMatch(UUID);
    expect(body).toMatchObject(input);
    expect(result).toMatchObject({
      id: 'pln_1',
      replayed: false,
      review_path: '/workspaces/ugc/plans/pln_1/review',
    });
    expect(result.request_id).toBe(body.request_id);
  });

  it('mints a different id per call', async () => {
    const { transport, requests } = testTransport(created());
    const plans = new CampaignPlans(transport);
    await plans.prepare(input);
    await plans.prepare(input);
    const [a, b] = requests.map((r) => (r.body as { request_id: string }).request_id);
    expect(a).not.toBe(b);
  });

  it('reuses the same request_id on its own retries, so a retry replays instead of creating twice', async () => {
    let n = 0;
    const { transport, requests } = testTransport((req) => {
      n++;
      if (n === 1) return { throws: new TypeError('fetch failed') };
      if (n === 2)
        return {
          status: 503,
          body: errorBody('service_unavailable'),
          headers: { 'retry-after': '1' },
        };
      return created(200, { 'idempotent-replayed': 'true' })(req);
    });
    const result = await new CampaignPlans(transport).prepare(input);
    expect(requests).toHaveLength(3);
    const sent = new Set(requests.map((r) => (r.body as { request_id: string }).request_id));
    expect(sent.size).toBe(1);
    expect(result.replayed).toBe(true);
  });

  it('uses the caller’s request id (option or input), and refuses two different ones', async () => {
    const id = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    const { transport, requests } = testTransport(created());
    const plans = new CampaignPlans(transport);
    await plans.prepare(input, { requestId: id });
    await plans.prepare({ ...input, request_id: id });
    await plans.prepare({ ...input, request_id: id }, { requestId: id });
    expect(requests.map((r) => (r.body as { request_id: string }).request_id)).toEqual([
      id,
      id,
      id,
    ]);
    await expect(
      plans.prepare({ ...input, request_id: id }, { requestId: crypto.randomUUID() }),
    ).rejects.toBeInstanceOf(TypeError);
    expect(requests).toHaveLength(3);
  });

  it.each([
    [409, 'request_conflict', RequestConflictError],
    [422, 'pending_plan_limit', PendingPlanLimitError],
    [400, 'validation_failed', ValidationFailedError],
  ])('throws %i %s typed, once, with the request id it used', async (status, code, Class) => {
    const { transport, requests } = testTransport([{ status, body: errorBody(code) }]);
    const error = await new CampaignPlans(transport).prepare(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Class);
    expect(requests).toHaveLength(1);
    expect((error as RequestConflictError).planRequestId).toBe(
      (requests[0]!.body as { request_id: string }).request_id,
    );
  });

  it('tells the request id after giving up on a lost connection, for a later retry', async () => {
    const { transport, requests } = testTransport([{ throws: new TypeError('fetch failed') }]);
    const error = await new CampaignPlans(transport).prepare(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(requests).toHaveLength(3);
    expect((error as ConnectionError).planRequestId).toMatch(UUID);
  });
});
