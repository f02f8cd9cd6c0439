import { EVENT_TYPES } from '@brand/shared/enums';
import {
  createPlansClient,
  createTestCa,
  createWebhooksClient,
  makeBrandWithKey,
  planBody,
  planInputMessage,
  startStack,
  TEST_INTERNAL_TOKEN,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type PlansClient,
  type Stack,
  type WebhooksClient,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../../src/http/errorResponse';

/**
 * The audit log (issue 63): what records, webhooks and plans record reaches the webhooks
 * service through each one's audit outbox and relay, numbered per brand, and an audit:read key
 * reads it over GET /api/v1/audit-log in the contract's list envelope and cursor rules, or
 * follows it from a position. Real processes, nothing mocked; every response is checked against
 * the OpenAPI document (ApiClient).
 */

interface Entry {
  position: number;
  id: string;
  kind: 'activity' | 'request';
  brand_id: string;
  action: string;
  source: string;
  summary: string;
  client_address: string;
  request?: { status: number; error_code: string };
}
interface Page {
  resource: string;
  count: number;
  data: Entry[];
  next_cursor?: string;
  next_after?: number;
  head: number;
}

let stack: Stack;
let api: ApiClient;
let hooks: WebhooksClient;
let plans: PlansClient;

beforeAll(async () => {
  const ca = createTestCa();
  stack = await startStack({
    plans: true,
    webhooks: {
      topic: uniqueTopic('audit'),
      groupId: uniqueConsumerGroup('audit'),
      caFile: ca.caFile,
    },
    gatewayEnv: { USAGE_FLUSH_INTERVAL_MS: '200', ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' },
  });
  api = new ApiClient(stack.gateway.url);
  hooks = createWebhooksClient(stack.webhooks!.address);
  plans = createPlansClient(stack.plans!.address, TEST_INTERNAL_TOKEN);
});
afterAll(async () => {
  hooks?.close();
  plans?.close();
  await stack?.close();
});

const read = (key: string, query = '') =>
  api.get<Page & ErrorBody>(`/api/v1/audit-log${query}`, { key });

/** A brand whose key reads the audit log, with one entry from each service and a refused request. */
async function busyBrand() {
  const t = await makeBrandWithKey(stack.admin, {
    permissions: ['audit:read', 'campaigns:prepare'],
  });
  await hooks.call('addReceiver', {
    brand_id: t.brand.id,
    url: 'https://localhost:8443/hooks',
    label: 'Audit test receiver',
    events: [EVENT_TYPES.toProto('payout.paid')],
    actor_email: t.owner.email,
  });
  const plan = await plans.plans('preparePlan', {
    brand_id: t.brand.id,
    input: planInputMessage(planBody()),
  });
  const admin = createPlansClient(stack.plans!.address);
  await admin.plans('cancelPlan', { plan_id: plan.plan!.id });
  admin.close();
  expect((await api.get('/api/v1/nope', { key: t.secret })).status).toBe(404);
  return t;
}

/** Waits until the brand's log holds every action named, newest first. */
async function logHolding(key: string, actions: string[]): Promise<Page> {
  return waitFor(
    async () => {
      const res = await read(key, '?limit=200');
      expect(res.status).toBe(200);
      const seen = res.body.data.map((e) => e.action);
      return actions.every((a) => seen.includes(a)) ? res.body : undefined;
    },
    { timeoutMs: 15_000, what: `audit log holding ${actions.join(', ')}` },
  );
}

describe('GET /api/v1/audit-log', () => {
  it("holds every service's activity and the refused requests, numbered, newest first", async () => {
    const t = await busyBrand();
    const page = await logHolding(t.secret, [
      'key.created',
      'receiver.added',
      'plan.cancelled',
      'request.refused',
    ]);
    expect(page.resource).toBe('audit_log');
    expect(page.count).toBe(page.data.length);
    const positions = page.data.map((e) => e.position);
    // one brand's positions are 1..head, newest first, with nothing missing
    expect(positions).toEqual(Array.from({ length: page.head }, (_, i) => page.head - i));
    expect(new Set(page.data.map((e) => e.source))).toEqual(
      new Set(['records', 'webhooks', 'plans']),
    );
    expect(page.data.every((e) => e.brand_id === t.brand.id)).toBe(true);
    const refused = page.data.find((e) => e.action === 'request.refused')!;
    expect(refused).toMatchObject({
      kind: 'request',
      request: { status: 404, error_code: 'unknown_resource' },
      client_address: '127.0.0.1',
    });
    expect(refused.id).toMatch(/^rql_\d+$/);
    // no next_cursor on a page shorter than its limit
    expect(page.next_cursor).toBeUndefined();

    // the cursor walk reads each entry once, in the same order
    const walked: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await read(t.secret, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      walked.push(...res.body.data.map((e) => e.position));
      cursor = res.body.next_cursor;
      if (res.body.count < 2) expect(cursor).toBeUndefined();
    } while (cursor);
    expect(walked.slice(0, positions.length)).toEqual(positions);

    // following: oldest first from a stored position, next_after to read on from
    const first = await read(t.secret, '?after=0&limit=2');
    expect(first.body.data.map((e) => e.position)).toEqual([1, 2]);
    expect(first.body.next_after).toBe(2);
    const rest = await read(t.secret, `?after=${first.body.next_after}&limit=200`);
    expect(rest.body.data[0]!.position).toBe(3);
    expect(rest.body.next_after).toBe(rest.body.head);

    // kinds
    const requests = await read(t.secret, '?kind=request');
    expect(requests.body.data.length).toBeGreaterThan(0);
    expect(requests.body.data.every((e) => e.kind === 'request')).toBe(true);
  });

  it('needs audit:read, keeps to the brand of the key, and refuses bad input with a 4xx', async () => {
    const t = await busyBrand();
    const plain = await makeBrandWithKey(stack.admin);
    const refused = await read(plain.secret);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_permission');
    expect(refused.body.error.message).toContain('audit:read');

    const other = await makeBrandWithKey(stack.admin, { permissions: ['audit:read'] });
    const mine = await logHolding(t.secret, ['plan.cancelled']);
    const theirs = await logHolding(other.secret, ['key.created']);
    expect(theirs.data.every((e) => e.brand_id === other.brand.id)).toBe(true);
    const mineIds = new Set(mine.data.map((e) => e.id));
    expect(theirs.data.some((e) => mineIds.has(e.id))).toBe(false);

    // a cursor of one brand is refused on another, and an altered one too
    const paged = await read(t.secret, '?limit=1');
    const cursor = paged.body.next_cursor!;
    expect((await read(other.secret, `?cursor=${cursor}`)).body.error.code).toBe('invalid_cursor');
    const altered = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
    expect((await read(t.secret, `?cursor=${altered}`)).status).toBe(400);
    // a cursor of one kind is refused for another
    const byKind = await read(t.secret, '?limit=1&kind=activity');
    expect(
      (await read(t.secret, `?kind=request&cursor=${byKind.body.next_cursor}`)).body.error.code,
    ).toBe('invalid_cursor');

    const beyond = await read(t.secret, `?after=${mine.head + 100}`);
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.code).toBe('position_beyond_head');
    for (const bad of ['?limit=0', '?limit=201', '?kind=all', '?after=-1', '?since=2026-01-01']) {
      const res = await read(t.secret, bad);
      expect([bad, res.status, res.body.error.code]).toEqual([bad, 400, 'invalid_parameter']);
    }
    expect((await read(t.secret, '?cursor=abc&after=1')).status).toBe(400);
    const posted = await api.post<ErrorBody>('/api/v1/audit-log', { key: t.secret });
    expect(posted.status).toBe(405);
  });

  it('words a foreign or forged cursor as the gateway words a malformed one, here and on the feed', async () => {
    // the gateway's shape check and the webhooks service's MAC said it in two ways (a hostile
    // review, 2026-11-30): one error, one wording, wherever it is caught
    const t = await makeBrandWithKey(stack.admin, {
      permissions: ['audit:read'],
    });
    const forged = `abc.${'A'.repeat(16)}`; // the shape of a cursor, not its MAC
    for (const path of ['/api/v1/audit-log', '/api/v1/events']) {
      const [caught, malformed] = await Promise.all([
        api.get<ErrorBody>(`${path}?cursor=${forged}`, { key: t.secret }),
        api.get<ErrorBody>(`${path}?cursor=not-a-cursor`, { key: t.secret }),
      ]);
      const words = (r: typeof caught) => [r.status, r.body.error.code, r.body.error.message];
      expect(words(caught)).toEqual(words(malformed));
      expect(words(caught).slice(0, 2)).toEqual([400, 'invalid_cursor']);
      expect(caught.body.error.details).toEqual(malformed.body.error.details);
    }
  });

  it('counts against the brand budget like any authenticated request', async () => {
    const t = await makeBrandWithKey(stack.admin, { permissions: ['audit:read'] });
    const res = await read(t.secret);
    expect(res.headers.get('RateLimit-Policy')).toMatch(/^"brand"/);
    expect(res.headers.get('RateLimit')).toMatch(/^"brand";r=59;/);
  });
});
