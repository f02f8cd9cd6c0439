// In a real browser (Debian's Chromium via playwright-core): an owner rolls a key with a 1 hour
// overlap, sees the replacement once, sees the old key counting down (ticked by
// /static/countdown.js, the absolute UTC time beside it), ends the overlap with "Expire now", and
// the gateway refuses the old key. axe-core checks each page; screenshots go to docs/console/
// (key-roll.png, keys-rolled.png).
import type { Browser } from 'playwright-core';
import { randomHex, waitFor } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { expectAccessible, launchChromium, screenshot, signIn } from './browserKit';

let cs: ConsoleStack;
let browser: Browser;

beforeAll(async () => {
  cs = await startConsoleStack();
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await cs?.close();
});

async function gatewayStatus(key: string): Promise<number> {
  const res = await fetch(`${cs.stack.gateway.url}/api/v1/campaigns?limit=1`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return res.status;
}

it('an owner rolls a key with an overlap, watches the countdown and ends it early', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const old = await cs.stack.admin.createKey({
    brandId: brand.id,
    actorEmail: owner.email,
    name: 'Warehouse sync',
    permissions: ['campaigns:prepare'],
  });

  const page = await signIn(browser, cs, owner.email);
  await page.goto(`${cs.url}/brands/${brand.id}/keys`);

  await page.getByRole('link', { name: 'Roll Warehouse sync' }).click();
  await page.getByRole('heading', { name: /Roll “Warehouse sync”/ }).waitFor();
  await page.getByLabel('In 1 hour').check();
  await expectAccessible(page);
  await screenshot(page, 'key-roll');
  await page.getByRole('button', { name: 'Roll key' }).click();

  await page.getByRole('heading', { name: /Your new key/ }).waitFor();
  const secret = (await page.locator('#new-secret').textContent())!.trim();
  expect(secret).toMatch(/^bk_live_/);
  await page.getByText(/The old key .* keeps working until/).waitFor();
  await expectAccessible(page);
  expect(await gatewayStatus(old.secret)).toBe(200);
  expect(await gatewayStatus(secret)).toBe(200);

  await page.getByRole('link', { name: 'Back to API keys' }).click();
  const countdown = page.locator(`[data-expires-at]`);
  await expect(countdown.textContent()).resolves.toMatch(/expires in (59 min|1 h 0 min)/);
  // The script ticks it: within a few seconds the words change to the second.
  const first = await countdown.textContent();
  await waitFor(async () => (await countdown.textContent()) !== first, {
    timeoutMs: 3_000,
    what: 'the countdown to tick',
  });
  await expect(countdown.textContent()).resolves.toMatch(/^expires in 59 min \d\d s$/);
  await page.getByText(/^at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/).waitFor();
  await page.getByText('replaced by').waitFor();
  await expectAccessible(page);
  await screenshot(page, 'keys-rolled');

  await page.getByRole('link', { name: 'Expire Warehouse sync now' }).click();
  await page.getByRole('heading', { name: /Expire “Warehouse sync” now/ }).waitFor();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Expire now' }).click();
  await page.getByText('The key has expired. It no longer works.').waitFor();
  await page.getByText(/expired \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/).waitFor();
  await waitFor(async () => (await gatewayStatus(old.secret)) === 401, {
    timeoutMs: 1_000,
    intervalMs: 20,
    what: 'the gateway to refuse the expired key',
  });
  expect(await gatewayStatus(secret)).toBe(200);
  await page.context().close();
});
