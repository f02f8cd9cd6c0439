import { createPlansClient, planBody, planInputMessage, TEST_INTERNAL_TOKEN } from '@brand/testkit';
import { closedAddress, jsonOf, useBrandctlStack } from './brandctlHarness';

// brandctl plan list | show | cancel | complete end to end, against a real plans process:
// owners see notes here (and only here), cancelling and completing free room under the
// pending limit, and refusals carry the service's reason with exit 1.

interface PlanOut {
  id: string;
  status: string;
  campaign_type: string;
  planning_budget: string;
  notes: string | null;
  review_path: string;
}

const h = useBrandctlStack({ plans: true, plansEnv: { PENDING_PLAN_LIMIT: '2' } });
const run = h.run;
const brandId = 'br_brandctlPlans';
const ids: string[] = [];
const body = planBody({ notes: 'Owner-only: walk-away price 20k', campaign_type: 'package' });

beforeAll(async () => {
  const gateway = createPlansClient(h.stack.plans!.address, TEST_INTERNAL_TOKEN);
  try {
    for (const b of [body, planBody({ title: 'Second plan' })]) {
      const res = await gateway.plans('preparePlan', {
        brand_id: brandId,
        input: planInputMessage(b),
      });
      ids.push(res.plan!.id);
    }
  } finally {
    gateway.close();
  }
});

describe('brandctl plan', () => {
  it('has --help for the group and every command', async () => {
    for (const args of [
      ['plan'],
      ['plan', 'list'],
      ['plan', 'show'],
      ['plan', 'cancel'],
      ['plan', 'complete'],
    ]) {
      const r = await run(...args, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Usage: brandctl plan/);
    }
  });

  it("lists a brand's plans newest first, as a table and as JSON", async () => {
    const human = await run('plan', 'list', '--brand', brandId);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ID +STATUS +TYPE +TITLE +PLANNED FOR +BUDGET +CREATED$/m);
    expect(human.stdout.indexOf(ids[1]!)).toBeLessThan(human.stdout.indexOf(ids[0]!));
    expect(human.stdout).toContain('PHP 25000.50');
    const json = jsonOf<{ plans: PlanOut[] }>(
      await run('plan', 'list', '--brand', brandId, '--json'),
    );
    expect(json.plans.map((p) => p.id)).toEqual([ids[1], ids[0]]);
  });

  it('shows one plan with its notes (owners see them here)', async () => {
    const human = await run('plan', 'show', ids[0]!);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Owner-only: walk-away price 20k');
    expect(human.stdout).toContain(`/workspaces/influencers/plans/${ids[0]}/review`);
    const { plan } = jsonOf<{ plan: PlanOut }>(await run('plan', 'show', ids[0]!, '--json'));
    expect(plan).toMatchObject({
      id: ids[0],
      status: 'pending',
      campaign_type: 'package',
      planning_budget: '25000.50',
      notes: 'Owner-only: walk-away price 20k',
    });
  });

  it('cancels a pending plan, which frees room under the limit', async () => {
    const gateway = createPlansClient(h.stack.plans!.address, TEST_INTERNAL_TOKEN);
    const third = planBody();
    try {
      await expect(
        gateway.plans('preparePlan', { brand_id: brandId, input: planInputMessage(third) }),
      ).rejects.toMatchObject({ code: 'pending_plan_limit' });
      const r = await run('plan', 'cancel', ids[0]!);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Plan ${ids[0]} cancelled.`);
      const res = await gateway.plans('preparePlan', {
        brand_id: brandId,
        input: planInputMessage(third),
      });
      ids.push(res.plan!.id);
    } finally {
      gateway.close();
    }
    const pending = jsonOf<{ plans: PlanOut[] }>(
      await run('plan', 'list', '--brand', brandId, '--status', 'pending', '--json'),
    );
    expect(pending.plans.map((p) => p.id)).toEqual([ids[2], ids[1]]);
  });

  it('completes a pending plan and refuses to cancel it afterwards (exit 1, reason kept)', async () => {
    const { plan } = jsonOf<{ plan: PlanOut }>(await run('plan', 'complete', ids[1]!, '--json'));
    expect(plan.status).toBe('completed');
    const error = await h.refused('plan', 'cancel', ids[1]!);
    expect(error).toMatchObject({ code: 'precondition_failed' });
    expect(error.message).toMatch(/completed/);
  });

  it('refuses an unknown plan with not_found and a bad status with a usage error', async () => {
    expect(await h.refused('plan', 'show', 'pln_doesNotExist')).toMatchObject({
      code: 'not_found',
    });
    const usage = await run('plan', 'list', '--brand', brandId, '--status', 'archived');
    expect(usage.code).toBe(2);
  });

  it('names the plans service and its address when it cannot be reached (exit 3)', async () => {
    const addr = await closedAddress();
    const r = await run('plan', 'list', '--brand', brandId, '--plans', addr);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`cannot reach the plans service at ${addr}`);
  });
});
