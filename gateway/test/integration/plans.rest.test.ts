import { randomUUID } from 'node:crypto';
import {
  createPlansClient,
  planBody,
  startStack,
  type PlansClient,
  type Stack,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../support/mcpHttp';
import { makePlanBrand, planRows, postPlan, type PlanBrand } from '../support/plans';

// Over REST: POST /api/v1/campaign-plans creates one plan per (brand, request_id), replays
// identical input, refuses changed input and cancelled plans, enforces the permission, validates
// field by field and never returns notes.

let stack: Stack;
let api: ApiClient;
let admin: PlansClient;
let brand: PlanBrand;

beforeAll(async () => {
  stack = await startStack({
    plans: true,
    gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' },
  });
  api = new ApiClient(stack.gateway.url);
  admin = createPlansClient(stack.plans!.address);
  brand = await makePlanBrand(stack);
});
afterAll(async () => {
  admin?.close();
  await stack?.close();
});

describe('POST /api/v1/campaign-plans', () => {
  it('creates a pending plan: 201, the result with its review_path, and no notes', async () => {
    const body = planBody({ campaign_type: 'affiliate', planning_budget: 1234.5 });
    const res = await postPlan(api, brand.prepareKey, body);
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body).toMatchObject({
      request_id: body.request_id,
      status: 'pending',
      campaign_type: 'affiliate',
      title: body.title,
      planned_for: body.planned_for,
      review_on: body.review_on,
      planning_budget: '1234.50',
      planning_budget_amount: 123_450,
      currency: 'PHP',
      requirements: body.requirements,
      platforms: body.platforms,
    });
    expect(res.body.id).toMatch(/^pln_[A-Za-z0-9]{20}$/);
    expect(res.body.review_path).toBe(`/workspaces/affiliate/plans/${res.body.id}/review`);
    expect(res.body).not.toHaveProperty('notes');
    expect(res.text).not.toContain(String(body.notes));
  });

  it.each([
    ['blitz', 'clipping'],
    ['ugc', 'ugc'],
    ['package', 'influencers'],
    ['affiliate', 'affiliate'],
  ])('opens a %s plan in the %s workspace', async (type, workspace) => {
    const res = await postPlan(api, brand.prepareKey, planBody({ campaign_type: type }));
    expect(res.status).toBe(201);
    expect(res.body.review_path).toBe(`/workspaces/${workspace}/plans/${res.body.id}/review`);
  });

  it('replays identical input: 200, Idempotent-Replayed: true, the identical body and plan', async () => {
    const body = planBody();
    const first = await postPlan(api, brand.prepareKey, body);
    // the same input in another spelling: field order, budget as a number, request_id case
    const respelled = Object.fromEntries(Object.entries(body).reverse());
    const again = await postPlan(api, brand.prepareKey, {
      ...respelled,
      planning_budget: 25000.5,
      request_id: String(body.request_id).toUpperCase(),
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await planRows(stack, brand.brandId)).toBeGreaterThan(0);
    const { rows } = await stack.db.pool.query('select id from plans.plans where request_id = $1', [
      body.request_id,
    ]);
    expect(rows).toHaveLength(1);
  });

  it('refuses changed input under a used request_id: 409 request_conflict', async () => {
    const body = planBody();
    expect((await postPlan(api, brand.prepareKey, body)).status).toBe(201);
    for (const change of [
      { title: 'Changed' },
      { planning_budget: '25000.51' },
      { notes: 'other' },
    ]) {
      const res = await postPlan<ErrorBody>(api, brand.prepareKey, { ...body, ...change });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('request_conflict');
    }
  });

  it('refuses a retry of a cancelled plan: 409 request_conflict', async () => {
    const body = planBody();
    const created = await postPlan(api, brand.prepareKey, body);
    await admin.plans('cancelPlan', { plan_id: created.body.id });
    const res = await postPlan<ErrorBody>(api, brand.prepareKey, body);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'request_conflict' });
    expect(res.body.error.message).toMatch(/cancelled/);
  });

  it('replays to another key of the same brand, also after the first key is revoked', async () => {
    const rotating = await makePlanBrand(stack);
    const body = planBody();
    const first = await postPlan(api, rotating.prepareKey, body);
    expect(first.status).toBe(201);
    const rotated = await stack.admin.createKey({
      brandId: rotating.brandId,
      actorEmail: rotating.ownerEmail,
      name: 'Planner v2',
      permissions: ['campaigns:prepare'],
    });
    const viaOther = await postPlan(api, rotated.secret, body);
    expect(viaOther.status).toBe(200);
    expect(viaOther.body).toEqual(first.body);

    await stack.admin.revokeKey(rotating.prepareKeyId, rotating.ownerEmail);
    expect((await postPlan(api, rotating.prepareKey, body)).status).toBe(401);
    const afterRevocation = await postPlan(api, rotated.secret, body);
    expect(afterRevocation.status).toBe(200);
    expect(afterRevocation.headers.get('idempotent-replayed')).toBe('true');
    expect(afterRevocation.body).toEqual(first.body);
  });

  it('gives a key of another brand using the same request_id an independent plan', async () => {
    const body = planBody();
    const mine = await postPlan(api, brand.prepareKey, body);
    const other = await makePlanBrand(stack);
    const theirs = await postPlan(api, other.prepareKey, body);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a key without campaigns:prepare: 403 insufficient_permission, nothing created', async () => {
    const body = planBody();
    const res = await postPlan<ErrorBody>(api, brand.readKey, body);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_permission');
    const { rows } = await stack.db.pool.query('select 1 from plans.plans where request_id = $1', [
      body.request_id,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('cannot be reached with a test key: test keys never hold campaigns:prepare', async () => {
    await expect(
      stack.admin.createKey({
        brandId: brand.brandId,
        actorEmail: brand.ownerEmail,
        environment: 'test',
        permissions: ['campaigns:prepare'],
      }),
    ).rejects.toMatchObject({
      code: 'precondition_failed',
      message: expect.stringMatching(/only be granted to live keys/) as unknown,
    });
  });

  it('needs a key: 401 without one', async () => {
    const res = await api.post<ErrorBody>('/api/v1/campaign-plans', { body: planBody() });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('missing_key');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['2026-02-30', { planned_for: '2026-02-30' }, 'planned_for'],
    ['a three-decimal budget', { planning_budget: '100.125' }, 'planning_budget'],
    ['a negative budget', { planning_budget: -5 }, 'planning_budget'],
    ['an unknown campaign_type', { campaign_type: 'tv' }, 'campaign_type'],
    ['a review after the planned date', { review_on: '2027-06-02' }, 'review_on'],
    ['an oversized title', { title: 't'.repeat(201) }, 'title'],
    ['an unknown field', { publish: true }, 'publish'],
    ['a request_id that is not a UUID', { request_id: 'retry-1' }, 'request_id'],
  ])('refuses %s: 400 validation_failed naming the field', async (_name, change, field) => {
    const res = await postPlan<ErrorBody>(api, brand.prepareKey, planBody(change));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details?.map((d) => d.field)).toContain(field);
  });

  it('refuses a body that is not a JSON object with a 4xx, never a 5xx', async () => {
    for (const rawBody of ['{"title":', '[]', '"text"', 'null']) {
      const res = await api.post<ErrorBody>('/api/v1/campaign-plans', {
        key: brand.prepareKey,
        rawBody,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });

  it('stores notes but never returns them, in a new or a replayed answer', async () => {
    const body = planBody({ notes: `secret-${randomUUID()}` });
    const first = await postPlan(api, brand.prepareKey, body);
    const again = await postPlan(api, brand.prepareKey, body);
    for (const res of [first, again]) {
      expect(res.text).not.toContain(String(body.notes));
      expect(res.body).not.toHaveProperty('notes');
    }
    const { rows } = await stack.db.pool.query<{ notes: string }>(
      'select notes from plans.plans where id = $1',
      [first.body.id],
    );
    expect(rows[0]?.notes).toBe(body.notes);
  });

  it('counts each request once against the brand rate limit, whatever its outcome', async () => {
    const fresh = await makePlanBrand(stack);
    const body = planBody();
    const remaining: number[] = [];
    for (const b of [body, body, { ...body, title: 'x' }, planBody({ planned_for: 'soon' })]) {
      const res = await postPlan<unknown>(api, fresh.prepareKey, b);
      const m = /r=(\d+)/.exec(res.headers.get('ratelimit') ?? '');
      expect(m).not.toBeNull();
      remaining.push(Number(m![1]));
    }
    expect(remaining).toEqual([239, 238, 237, 236]);
  });
});
