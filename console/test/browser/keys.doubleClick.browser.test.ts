// In a real browser: a double-clicked "Create key" makes one key, and its secret is the one
// shown (forms/submitOnce.ts). An outside probe found two live keys, one never shown.
import type { Browser } from 'playwright-core';
import { randomHex } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { launchChromium, signIn } from './browserKit';

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

it('a double-clicked "Create key" makes one key and shows its secret', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const page = await signIn(browser, cs, owner.email);
  await page.goto(`${cs.url}/brands/${brand.id}/keys`);
  await page.getByLabel('Name (the integration that will use it)').fill('Double');
  // A person's double click: the second press lands while the first post is on its way
  // (Playwright's dblclick() is so fast that the browser merges the two submissions).
  const button = page.getByRole('button', { name: 'Create key' });
  await button.scrollIntoViewIfNeeded();
  const box = (await button.boundingBox())!;
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST') posts.push(r.url());
  });
  await page.mouse.click(x, y);
  await page.waitForTimeout(30);
  await page.mouse.click(x, y);
  // The first navigation is aborted by the second: wait for where the page ends up.
  await page.getByRole('heading', { name: /Your new key|no longer shown/ }).waitFor();
  expect(posts).toHaveLength(2);
  const keys = await cs.stack.admin.listKeys(brand.id);
  expect(keys).toHaveLength(1);
  await page.getByRole('heading', { name: /Your new key/ }).waitFor({ timeout: 1_000 });
  const secret = await page.locator('#new-secret').textContent();
  expect(secret).toContain(keys[0]!.prefix);
  await page.context().close();
});
