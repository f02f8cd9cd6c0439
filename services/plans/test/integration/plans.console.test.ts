// The console acts for a brand member on campaign plans. The plans service checks the member
// assertion itself, shows every member the brand's plans (notes included: they are private to the
// brand, not to its owners), lets only owners cancel, keeps brands apart (another brand's plan is
// not_found, worded as a missing one), reports the pending count against the limit, and logs
// cancellations. Nothing here can approve, fund or publish.
import { PlanStatus, PlansServiceService } from '@brand/proto/plans/v1';
import { MEMBER_ASSERTION_METADATA, type MemberClaims } from '@brand/shared/console';
import {
  createPlansClient,
  createTestDatabase,
  planBody,
  planInputMessage,
  randomHex,
  signTestAssertion,
  startPlans,
  TEST_CONSOLE_TOKEN,
  TEST_INTERNAL_TOKEN,
  type PlansClient,
  type PlansProcess,
  type TestDatabase,
} from '@brand/testkit';

let db: TestDatabase;
let plans: PlansProcess;
let gateway: PlansClient;
const clients: PlansClient[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  plans = await startPlans({ databaseUrl: db.url, env: { PENDING_PLAN_LIMIT: '200' } });
  gateway = createPlansClient(plans.address, TEST_INTERNAL_TOKEN);
});
afterAll(async () => {
  gateway?.close();
  clients.forEach((c) => c.close());
  await plans?.stop();
  await db?.close();
});

function member(brandId: string, role: MemberClaims['role']) {
  const claims = {
    brand_id: brandId,
    member_id: `mem_${randomHex(8)}`,
    email: `${role}-${randomHex(3)}@brand.test`,
    role,
    tier: 'plus' as const,
  };
  const client = createPlansClient(plans.address, TEST_CONSOLE_TOKEN, {
    [MEMBER_ASSERTION_METADATA]: signTestAssertion(claims),
  });
  clients.push(client);
  return { claims, plans: client.plans };
}

async function brandWithPlans(n: number) {
  const brandId = `br_console${randomHex(6)}`;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const input = planInputMessage(planBody({ title: `Plan ${i}` }));
    ids.push((await gateway.plans('preparePlan', { brand_id: brandId, input })).plan!.id);
  }
  return { brandId, ids };
}

describe('members read plans', () => {
  it.each<MemberClaims['role']>(['owner', 'admin', 'member'])(
    'a %s lists pending, cancelled and completed plans with notes and the pending count',
    async (role) => {
      const { brandId, ids } = await brandWithPlans(3);
      const owner = member(brandId, 'owner');
      await owner.plans('cancelPlan', { plan_id: ids[0]! });
      const who = role === 'owner' ? owner : member(brandId, role);
      const all = await who.plans('listPlans', { brand_id: brandId, status: 0 });
      expect(all.plans.map((p) => p.id)).toEqual([...ids].reverse());
      expect(all.plans[0]!.notes).toBe(planBody().notes);
      expect(all).toMatchObject({ pending_count: 2, pending_limit: 200 });
      const cancelled = await who.plans('listPlans', {
        brand_id: brandId,
        status: PlanStatus.PLAN_STATUS_CANCELLED,
      });
      expect(cancelled.plans.map((p) => p.id)).toEqual([ids[0]]);
      expect(cancelled.pending_count).toBe(2);
      await expect(who.plans('getPlan', { plan_id: ids[1]! })).resolves.toMatchObject({
        plan: { id: ids[1], notes: planBody().notes },
      });
    },
  );
});

describe('cancelling', () => {
  it('an owner cancels; the activity names them', async () => {
    const { brandId, ids } = await brandWithPlans(1);
    const owner = member(brandId, 'owner');
    const { plan } = await owner.plans('cancelPlan', { plan_id: ids[0]! });
    expect(plan?.status).toBe(PlanStatus.PLAN_STATUS_CANCELLED);
    const { entries } = await owner.plans('listActivity', {
      brand_id: brandId,
      page_size: 0,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'plan.cancelled',
        subject_id: ids[0],
        actor_member_id: owner.claims.member_id,
        actor_email: owner.claims.email,
      }),
    ]);
  });

  it('admins and members cannot cancel, and the plan stays pending', async () => {
    const { brandId, ids } = await brandWithPlans(1);
    for (const role of ['admin', 'member'] as const) {
      await expect(
        member(brandId, role).plans('cancelPlan', { plan_id: ids[0]! }),
      ).rejects.toMatchObject({ code: 'insufficient_permission' });
    }
    const { plan } = await member(brandId, 'owner').plans('getPlan', { plan_id: ids[0]! });
    expect(plan?.status).toBe(PlanStatus.PLAN_STATUS_PENDING);
  });

  it('the console cannot complete a plan: completion stays with operators', async () => {
    const { brandId, ids } = await brandWithPlans(1);
    await expect(
      member(brandId, 'owner').plans('completePlan', { plan_id: ids[0]! }),
    ).rejects.toMatchObject({ code: 'insufficient_permission' });
  });
});

describe("another brand's owner", () => {
  it('gets not_found for this brand, worded as for a missing plan', async () => {
    const { brandId, ids } = await brandWithPlans(1);
    const other = member(`br_other${randomHex(6)}`, 'owner');
    const missing = await other
      .plans('getPlan', { plan_id: 'pln_doesNotExist0000' })
      .catch((e: Error) => e.message.replace('pln_doesNotExist0000', ids[0]!));
    await expect(other.plans('getPlan', { plan_id: ids[0]! })).rejects.toMatchObject({
      code: 'not_found',
      message: missing,
    });
    for (const call of [
      other.plans('cancelPlan', { plan_id: ids[0]! }),
      other.plans('listPlans', { brand_id: brandId, status: 0 }),
      other.plans('listActivity', {
        brand_id: brandId,
        page_size: 0,
        page_token: '',
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      }),
    ]) {
      await expect(call).rejects.toMatchObject({ code: 'not_found' });
    }
    const { plan } = await member(brandId, 'owner').plans('getPlan', { plan_id: ids[0]! });
    expect(plan?.status).toBe(PlanStatus.PLAN_STATUS_PENDING);
  });
});

describe('docs/contract.md#scope-and-rules', () => {
  it('the plans service offers nothing that approves, funds, pays, settles or publishes', () => {
    const methods = Object.keys(PlansServiceService);
    expect(methods.filter((m) => /approve|fund|pay|settle|publish/i.test(m))).toEqual([]);
  });
});
