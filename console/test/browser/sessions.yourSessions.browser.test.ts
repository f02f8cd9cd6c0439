// In a real browser (Debian's Chromium via playwright-core): a person signed in on two browsers
// sees both on "Your sessions" (device in words, address, times), signs the other one out, and that
// browser is sent to sign in on its next page; an owner sees each member's last sign-in and how on
// the members page. axe-core checks each page; screenshots go to docs/console/ (sessions,
// members-last-sign-in).
import type { Browser } from 'playwright-core';
import { randomHex } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { expectAccessible, launchChromium, screenshot, screenshotOf, signIn } from './browserKit';

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

const FIREFOX_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:133.0) Gecko/20100101 Firefox/133.0';

it('lists the sessions of the address and signs another one out', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'pro',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  await cs.stack.admin.addMember({
    brandId: brand.id,
    email: `dev-${randomHex(4)}@brand.test`,
    role: 'admin',
  });
  const other = await signIn(browser, cs, owner.email, { userAgent: FIREFOX_MAC });
  const page = await signIn(browser, cs, owner.email);

  await page.getByRole('link', { name: 'Your sessions' }).click();
  await page.getByRole('heading', { name: 'Your sessions' }).waitFor();
  const rows = page.locator('tbody tr');
  await expect(rows.count()).resolves.toBe(2);
  await expect(rows.nth(0).textContent()).resolves.toMatch(/Chrome on Linux \(this session\)/);
  await expect(rows.nth(1).textContent()).resolves.toMatch(/Firefox on macOS/);
  await expect(rows.nth(1).textContent()).resolves.toMatch(/127\.0\.0\.1/);
  await expectAccessible(page);
  await screenshot(page, 'sessions');

  await page.getByRole('button', { name: /^Sign out Firefox on macOS/ }).click();
  await page.getByText('That session is signed out.').waitFor();
  await expect(rows.count()).resolves.toBe(1);
  await other.reload();
  await other.waitForURL(/\/sign-in\?next=%2Fbrands%2Fbr_[A-Za-z0-9]+$/);
  await other.getByRole('heading', { name: 'Sign in to the Developers area' }).waitFor();

  await page.goto(`${cs.url}/brands/${brand.id}/members`);
  const table = page.locator('table');
  await expect(table.textContent()).resolves.toMatch(/UTC by emailed link/);
  await expect(table.textContent()).resolves.toMatch(/Never/);
  await expectAccessible(page);
  await screenshotOf(table, 'members-last-sign-in');
});
