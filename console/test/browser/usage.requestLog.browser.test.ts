// In a real browser (Debian's Chromium via playwright-core): an owner reads the brand's usage (per
// minute and per hour, REST and assistant apart, against the budget, the keys' shares) and the
// request log with each 401's reason; an admin sees the log without the reasons. Counts are written
// the way a gateway flushes them (RecordUsage with the internal token), so the numbers are known.
// axe-core checks each page; screenshots go to docs/console/.
import type { Browser, Page } from 'playwright-core';
import { UsageSurface, type RefusedRequest, type UsageCount } from '@brand/proto/access/v1/usage';
import { ENVIRONMENTS } from '@brand/shared/enums';
import { hashApiKey } from '@brand/shared/keys';
import { createAdminClient, randomHex, TEST_INTERNAL_TOKEN } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import {
  expectAccessible,
  LAPTOP,
  launchChromium,
  pageHeight,
  pixelNearFoot,
  screenshot,
  screenshotOf,
  signIn as signInAs,
} from './browserKit';

let cs: ConsoleStack;
let browser: Browser;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await cs?.close();
});

const signIn = (email: string): Promise<Page> => signInAs(browser, cs, email);

const REST = UsageSurface.USAGE_SURFACE_REST;
const ASSISTANT = UsageSurface.USAGE_SURFACE_ASSISTANT;

it('shows usage against the budget and the request log with owner-only reasons', async () => {
  const admin = cs.stack.admin;
  const { brand, owner } = await admin.createBrand({
    name: 'Demo Brand',
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const adminEmail = `admin-${randomHex(4)}@brand.test`;
  await admin.addMember({ brandId: brand.id, email: adminEmail, role: 'admin' });
  const key = (name: string, environment: 'live' | 'test' = 'live') =>
    admin.createKey({ brandId: brand.id, actorEmail: owner.email, name, environment });
  const sync = await key('Warehouse sync');
  const reports = await key('Reports');
  const old = await key('Old sync');
  const sandbox = await key('Sandbox', 'test');
  await admin.revokeKey(old.key.id, owner.email);

  // Three hours of traffic, a busy last hour where the sync spends the budget.
  const now = Math.floor(Date.now() / 60_000) * 60;
  const counts: UsageCount[] = [];
  const add = (k: string, minute: number, surface: UsageSurface, outcome: string, count: number) =>
    counts.push({
      brand_id: brand.id,
      key_id: k,
      key_hash: '',
      address_brand_id: '',
      minute,
      surface,
      outcome,
      count,
    });
  for (let m = 0; m < 180; m += 1) {
    const minute = now - m * 60;
    add(sync.key.id, minute, REST, '2xx', m < 30 ? 52 : 20 + (m % 7));
    if (m < 30 && m % 3 === 0) add(sync.key.id, minute, REST, '429', 9);
    add(reports.key.id, minute, REST, '304', 4);
    if (m % 5 === 0) add(reports.key.id, minute, ASSISTANT, '2xx', 6);
    if (m % 11 === 0) add(reports.key.id, minute, REST, '4xx:unknown_resource', 2);
  }
  const at = Date.now() - 5_000;
  const refused = (over: Partial<RefusedRequest>): RefusedRequest => ({
    at,
    brand_id: '',
    key_id: '',
    key_hash: '',
    address_brand_id: brand.id,
    method: 'GET',
    path: '/api/v1/campaigns',
    status: 401,
    error_code: 'invalid_key',
    request_id: `req_${randomHex(8)}`,
    surface: REST,
    gateway_reason: '',
    // the widest address the API can see: the log's columns must still fit a laptop's screen
    client_address: '2001:db8:85a3:8d3:1319:8a2e:370:7348',
    ...over,
  });
  const requests = [
    refused({ key_hash: hashApiKey(old.secret) }),
    refused({
      key_hash: hashApiKey(sandbox.secret),
      gateway_reason: 'wrong_environment',
      at: at + 1,
    }),
    refused({
      error_code: 'missing_key',
      gateway_reason: 'no_key',
      client_address: '203.0.113.54',
      surface: ASSISTANT,
      path: '/mcp',
      method: 'POST',
      at: at + 2,
    }),
    refused({ key_hash: hashApiKey(`bk_live_${randomHex(20)}`), at: at + 3 }),
    refused({
      brand_id: brand.id,
      key_id: sync.key.id,
      status: 429,
      error_code: 'rate_limited',
      at: at + 4,
    }),
    refused({
      brand_id: brand.id,
      key_id: reports.key.id,
      status: 404,
      error_code: 'unknown_resource',
      path: '/api/v1/campaign',
      at: at + 5,
    }),
  ];
  const gateway = createAdminClient(cs.stack.records.address, TEST_INTERNAL_TOKEN);
  try {
    await gateway.usage('recordUsage', {
      environment: ENVIRONMENTS.toProto('live'),
      counts,
      requests,
      batch_id: `test_${randomHex(8)}`,
    });
  } finally {
    gateway.close();
  }

  const page = await signIn(owner.email);
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: 'Usage', exact: true })
    .click();
  await page.getByRole('heading', { name: 'Usage', exact: true }).waitFor();
  await page.getByText('60 requests a minute').waitFor();
  const rest = page.locator('figure.chart').first();
  expect(await rest.locator('desc').textContent()).toMatch(
    /requests: .* succeeded \(2xx\).*rate limited \(429\)/,
  );
  expect(await page.locator('svg.usage-chart line.budget').count()).toBe(2);
  const sharers = page.getByRole('table').nth(0).getByRole('row');
  expect(await sharers.nth(1).getByRole('rowheader').textContent()).toMatch(/Warehouse sync/);
  await expectAccessible(page);
  await screenshot(page, 'usage');
  // The line between the side bar and the page runs to the foot of a page taller than the
  // screen (it once ended one screen down, drawn by the sticky side bar): the line's colour
  // (--line, #c9ced6) at its place, 12.5rem from the left, 8 px above the foot.
  expect(await pageHeight(page)).toBeGreaterThan(LAPTOP.height + 200);
  expect(await pixelNearFoot(page, 12.5 * 16 - 1, 8)).toEqual([0xc9, 0xce, 0xd6]);
  await screenshotOf(rest.locator('svg'), 'usage-chart');

  // One key, per hour.
  await page
    .getByRole('link', { name: /Warehouse sync/ })
    .first()
    .click();
  await page.getByRole('heading', { name: 'Usage of Warehouse sync' }).waitFor();
  await page.getByRole('link', { name: 'last 7 days, per hour' }).click();
  await page.waitForURL(/window=7d/);
  expect(await page.locator('figure.chart').first().locator('desc').textContent()).toContain(
    'budget of 3,600 an hour',
  );
  await expectAccessible(page);

  // The request log, with the reasons an owner gets.
  await page.getByRole('link', { name: 'Request log' }).click();
  await page.getByRole('heading', { name: 'Request log' }).waitFor();
  await page.getByText('at most the newest 10,000').waitFor();
  const log = page.locator('tbody');
  await log.getByText(/The key was revoked on .* by owner-/).waitFor();
  await log.getByText('A test key was used against this live deployment.').waitFor();
  await log.getByText(/No key: no Authorization header/).waitFor();
  await log.getByText(/An unknown key/).waitFor();
  expect(await log.getByRole('row').count()).toBe(6);
  // where each came from: the address the API saw and the surface it used
  await log.getByText('203.0.113.54').waitFor();
  expect(await log.getByText('via the assistant endpoint').count()).toBe(1);
  expect(await log.getByText('via REST').count()).toBe(5);
  await expectAccessible(page);
  await screenshot(page, 'request-log');
  const html = await page.content();
  for (const secret of [sync.secret, reports.secret, old.secret, sandbox.secret])
    expect(html).not.toContain(secret);

  // Filtered by code.
  await page.getByLabel('Error code').selectOption('rate_limited');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/code=rate_limited/);
  expect(await page.locator('tbody').getByRole('row').count()).toBe(1);

  // An admin reads the log without the reasons.
  const adminPage = await signIn(adminEmail);
  await adminPage.goto(`${cs.url}/brands/${brand.id}/requests`);
  await adminPage.getByText('Only brand owners see why a key was refused').waitFor();
  expect(await adminPage.locator('tbody').getByRole('row').count()).toBe(6);
  expect(await adminPage.content()).not.toContain('was revoked');
  await expectAccessible(adminPage);
}, 120_000);
