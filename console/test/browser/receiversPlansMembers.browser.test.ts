// In a real browser: receivers (add with the secret shown once, Test and watch the queued delivery
// succeed, a business event's delivery appearing), campaign plans (notes, the pending count,
// cancel), members (invite, change role, remove after asking, the last owner kept), activity and
// the brand picker.
// axe-core checks each page; screenshots go to docs/console/.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { startReceiver, type RunningReceiver } from '@brand/example-receiver';
import { makePendingSubmissions, planBody, randomHex } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import {
  expectAccessible,
  launchChromium,
  reloadPage,
  screenshot,
  signIn as signInAs,
} from './browserKit';

let cs: ConsoleStack;
let browser: Browser;
let receiver: RunningReceiver;
const secrets: string[] = [];

beforeAll(async () => {
  cs = await startConsoleStack();
  browser = await launchChromium();
  receiver = await startReceiver({
    tls: cs.ca.tls,
    secrets,
    acceptedTypes: ['submission.approved', 'payout.paid'],
  });
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await browser?.close();
  await cs?.close();
});

const signIn = (email: string): Promise<Page> => signInAs(browser, cs, email);

it('adds a receiver, shows its secret once, tests it, and shows deliveries as they happen', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'pro',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const page = await signIn(owner.email);
  await page.getByRole('link', { name: 'Receivers', exact: true }).click();
  await page.getByLabel('URL').fill(`${receiver.url}/hooks`);
  await page.getByLabel('Label').fill('Order system');
  await page.getByLabel('submission.approved').check();
  await page.getByLabel('payout.paid').check();
  await page.getByRole('button', { name: 'Add receiver' }).click();
  await page.getByRole('heading', { name: /Receiver “Order system” added/ }).waitFor();
  const secret = (await page.locator('#new-secret').textContent())!.trim();
  expect(secret).toMatch(/^whsec_/);
  secrets.push(secret);
  await expectAccessible(page);
  await screenshot(page, 'receiver-secret', [page.locator('#new-secret')]);
  // the one-time page is gone once seen: 410, the secret not in it, the way to the receiver is
  expect(await reloadPage(page)).toBe(410);
  expect(await page.content()).not.toContain(secret);

  // Test: queued first, then (poll.js updating the page) delivered.
  await page.getByRole('link', { name: /Go to the receiver/ }).click();
  await page.getByLabel('Event type').selectOption('payout.paid');
  await page.getByRole('button', { name: 'Test' }).click();
  await page.getByText('Delivered: the receiver answered 2xx').waitFor({ timeout: 30_000 });
  await expectAccessible(page);
  await screenshot(page, 'delivery');
  expect(receiver.received.some((r) => r.verdict.ok)).toBe(true);

  // A real business event (an operator approves a submission) reaches the log too.
  const [pending] = await makePendingSubmissions(cs.stack.db.pool, brand.id, 1);
  await cs.stack.admin.records('approveSubmission', { submission_id: pending!.id });
  const receiverLog = page.url().replace(/\/deliveries\/.*$/, '/deliveries');
  await expectEventually(page, receiverLog, 'submission.approved');
  await expectAccessible(page);

  // Resend the finished test delivery: queued again, delivered again.
  const delivered = receiver.received.length;
  await page
    .getByRole('button', { name: /^Resend delivery/ })
    .first()
    .click();
  await page.getByText('Delivered: the receiver answered 2xx').waitFor({ timeout: 30_000 });
  await receiver.waitFor((r) => r.length > delivered, 30_000);

  await page.getByRole('link', { name: 'Receivers', exact: true }).click();
  await page.getByText('Order system').waitFor();
  await expectAccessible(page);
  await screenshot(page, 'receivers');
  // six pages, four accessibility scans and three deliveries waited for: about 60 s on a busy
  // 2-core machine, twice that in a full run beside other test files
}, 150_000);

it('lists plans with their notes and the pending count, and cancels one', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'pro',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const key = await cs.stack.admin.createKey({
    brandId: brand.id,
    actorEmail: owner.email,
    permissions: ['campaigns:prepare'],
  });
  for (const title of ['Summer launch', 'Back-to-school']) {
    const res = await fetch(`${cs.stack.gateway.url}/api/v1/campaign-plans`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        planBody({ request_id: randomUUID(), title, notes: `Private: ${title}` }),
      ),
    });
    expect(res.status).toBe(201);
  }
  const page = await signIn(owner.email);
  await page.getByRole('link', { name: 'Campaign plans' }).click();
  await page.getByText('2 of 200').waitFor();
  await page.getByText('Private: Summer launch').waitFor();
  await expectAccessible(page);
  await screenshot(page, 'plans');
  await page.getByRole('button', { name: 'Cancel plan Summer launch' }).click();
  await page.getByText('The plan is cancelled.').waitFor();
  await page.getByText('1 of 200').waitFor();
  await page.getByRole('link', { name: 'Cancelled' }).click();
  await page.getByText('Summer launch', { exact: true }).waitFor();
});

it('manages members (the last owner is kept), shows activity, and lets a member of two brands pick one', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'pro',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const second = await cs.stack.admin.createBrand({
    name: 'Sister Brand',
    tier: 'plus',
    verified: true,
    ownerEmail: `other-${randomHex(4)}@brand.test`,
  });
  await cs.stack.admin.addMember({ brandId: second.brand.id, email: owner.email, role: 'admin' });
  const page = await signIn(owner.email);
  expect(new URL(page.url()).pathname).toBe('/brands');
  await expectAccessible(page);
  await screenshot(page, 'brands');
  // the console's address leads a member of two brands to the choice as well
  await page.goto(`${cs.url}/`);
  expect(new URL(page.url()).pathname).toBe('/brands');
  // a brand opens on its overview
  await page.getByRole('link', { name: 'Demo Brand' }).click();
  await page.getByRole('heading', { name: 'Demo Brand: overview' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/brands/${brand.id}`);

  await page.getByRole('link', { name: 'Members' }).click();
  const invited = `dev-${randomHex(4)}@brand.test`;
  await page.getByLabel('Email address').fill(invited);
  await page.getByLabel('Role', { exact: true }).selectOption('member');
  await page.getByRole('button', { name: 'Invite by email' }).click();
  await page.getByRole('status').getByText('Invited:').waitFor();
  // Pending until the person accepts (issue 59): listed apart, and not a member yet.
  await page.getByRole('heading', { name: 'Pending invitations' }).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'members-pending');
  // The invited person opens the mailed link in their own browser and accepts.
  const link = await cs.latestInvitation(invited, 'Demo Brand');
  const invitee = await browser.newContext();
  const invitation = await invitee.newPage();
  await invitation.goto(link);
  await invitation.getByRole('heading', { name: 'Join Demo Brand?' }).waitFor();
  await expectAccessible(invitation);
  await screenshot(invitation, 'invitation');
  await invitation.getByRole('button', { name: 'Accept and join Demo Brand' }).click();
  await invitation.getByRole('heading', { name: 'You joined Demo Brand' }).waitFor();
  await expectAccessible(invitation);
  await screenshot(invitation, 'invitation-accepted');
  await invitee.close();
  await page.reload();
  await page.getByRole('cell', { name: invited, exact: true }).waitFor();
  // The only owner cannot demote themself.
  await page.getByLabel(`Role of ${owner.email}`, { exact: true }).selectOption('member');
  await page.getByRole('button', { name: `Change role of ${owner.email}` }).click();
  await page.getByRole('alert').waitFor();
  await page.goto(`${cs.url}/brands/${brand.id}/members`);
  await expectAccessible(page);
  // The last owner's row offers no Remove (records would refuse it).
  await page.getByRole('row', { name: owner.email }).getByText('Last owner').waitFor();
  await screenshot(page, 'members');
  // Removing a member asks first, as revoking a key does, and the notice names them.
  await page.getByRole('link', { name: `Remove ${invited}` }).click();
  await page.getByRole('heading', { name: `Remove ${invited} from Demo Brand?` }).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'members-remove');
  await page.getByRole('button', { name: `Remove ${invited}` }).click();
  await page.getByRole('status').getByText(`Removed ${invited} from Demo Brand.`).waitFor();
  await screenshot(page, 'members-removed');

  // A key created and revoked, for the log.
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name (the integration that will use it)').fill('Warehouse sync');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('link', { name: 'Back to API keys' }).click();
  await page.getByRole('link', { name: 'Revoke Warehouse sync' }).click();
  await page.getByRole('button', { name: 'Revoke this key' }).click();
  await page.getByRole('link', { name: 'Activity' }).click();
  await page.locator('tbody').getByText('member.invited').first().waitFor();
  await page.locator('tbody').getByText('key.revoked').first().waitFor();
  await expectAccessible(page);
  await screenshot(page, 'activity');
});

/** Reloads `url` until a delivery of `text` is listed (another process makes it, in its time). */
async function expectEventually(page: Page, url: string, text: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await page.goto(url);
    // The delivery log links each delivery by its event type.
    if ((await page.getByRole('link', { name: text, exact: true }).count()) > 0) return;
    if (Date.now() > deadline) throw new Error(`"${text}" did not appear on ${url}`);
    await page.waitForTimeout(1_000);
  }
}
