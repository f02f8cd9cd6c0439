// One member, signed in through records, acting on webhooks and plans with the assertion records
// signed: the key pair is wired across real processes (records holds the private key, webhooks and
// plans the public one), and records' refusal of a removed member shuts the console out of every
// service at the next request.
import { PlanStatus } from '@brand/proto/plans/v1';
import { MEMBER_ASSERTION_METADATA } from '@brand/shared/console';
import {
  createConsoleClient,
  createPlansClient,
  createTopic,
  createWebhooksClient,
  deleteTopic,
  planBody,
  planInputMessage,
  randomHex,
  startStack,
  TEST_CONSOLE_TOKEN,
  TEST_INTERNAL_TOKEN,
  uniqueConsumerGroup,
  uniqueTopic,
  type ConsoleClient,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let console_: ConsoleClient;
let topic: string;

beforeAll(async () => {
  topic = uniqueTopic('console');
  await createTopic(topic);
  stack = await startStack({
    gateways: 0,
    plans: true,
    webhooks: { topic, groupId: uniqueConsumerGroup('console') },
  });
  console_ = createConsoleClient(stack.records.address);
});
afterAll(async () => {
  console_?.close();
  await stack?.close();
  await deleteTopic(topic);
});

/** The webhooks and plans callers the console would use for one resolved request. */
function servicesFor(assertion: string) {
  const metadata = { [MEMBER_ASSERTION_METADATA]: assertion };
  const webhooks = createWebhooksClient(stack.webhooks!.address, TEST_CONSOLE_TOKEN, metadata);
  const plans = createPlansClient(stack.plans!.address, TEST_CONSOLE_TOKEN, metadata);
  return {
    webhooks: webhooks.call,
    plans: plans.plans,
    close: () => {
      webhooks.close();
      plans.close();
    },
  };
}

it('a member acts on webhooks and plans with the assertion records signed, until removed', async () => {
  const { brand, owner } = await stack.admin.createBrand({
    tier: 'pro',
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const devEmail = `dev-${randomHex(4)}@brand.test`;
  const dev = await stack.admin.addMember({ brandId: brand.id, email: devEmail, role: 'member' });
  const gateway = createPlansClient(stack.plans!.address, TEST_INTERNAL_TOKEN);
  const input = planInputMessage(planBody());
  const { plan } = await gateway.plans('preparePlan', { brand_id: brand.id, input });
  gateway.close();

  const ownerSession = (await console_.signIn(owner.email)).sessionToken;
  const devSession = (await console_.signIn(devEmail)).sessionToken;

  const asOwner = servicesFor((await console_.actAs(ownerSession, brand.id)).assertion);
  const asDev = servicesFor((await console_.actAs(devSession, brand.id)).assertion);
  try {
    await expect(asDev.webhooks('listReceivers', { brand_id: brand.id })).resolves.toEqual({
      receivers: [],
    });
    await expect(
      asDev.plans('listPlans', { brand_id: brand.id, status: 0 }),
    ).resolves.toMatchObject({ plans: [{ id: plan!.id }], pending_count: 1 });
    await expect(asDev.plans('cancelPlan', { plan_id: plan!.id })).rejects.toMatchObject({
      code: 'insufficient_permission',
    });
    const { plan: cancelled } = await asOwner.plans('cancelPlan', { plan_id: plan!.id });
    expect(cancelled?.status).toBe(PlanStatus.PLAN_STATUS_CANCELLED);
    const { entries } = await asDev.plans('listActivity', {
      brand_id: brand.id,
      page_size: 0,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries[0]).toMatchObject({ action: 'plan.cancelled', actor_email: owner.email });

    // removed: the session (the address's) resolves this brand no more, so no fresh assertion
    // reaches any service (issue 59: it keeps the address's other brands)
    await asOwner.webhooks('listReceivers', { brand_id: brand.id });
    const ownerAccess = (await console_.actAs(ownerSession, brand.id)).access;
    await ownerAccess('removeMember', { member_id: dev.id });
    await expect(console_.actAs(devSession, brand.id)).rejects.toMatchObject({
      code: 'not_found',
    });
  } finally {
    asOwner.close();
    asDev.close();
  }
});
