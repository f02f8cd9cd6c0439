// In a real browser (Debian's Chromium via playwright-core): an owner filters the Activity page
// (merged from records, webhooks and plans) to key actions, pages to the older entries, and
// downloads the CSV export of the filtered range; a mistyped Who keeps the page with its form.
// axe-core checks each page; the screenshots go to docs/console/ (activity-filtered,
// activity-refused-filter).
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { randomHex } from '@brand/testkit';
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

/** A week of activity in the three services' own tables, at known times, newest last. */
async function seed(brandId: string, owner: string): Promise<void> {
  const names = ['Warehouse sync', 'Reports', 'Nightly export', 'CRM bridge', 'Staging'];
  const rows: [string, string, string, string, string][] = [];
  for (let i = 0; i < 60; i++) {
    const name = names[i % names.length]!;
    const action = i % 3 === 0 ? 'key.revoked' : i % 3 === 1 ? 'key.created' : 'key.rolled';
    rows.push([
      'records',
      action,
      `key_${randomHex(6)}`,
      `${name} (bk_live_${randomHex(2)})`,
      owner,
    ]);
    if (i % 4 === 0) {
      rows.push([
        'webhooks',
        'receiver.tested',
        `rcv_${randomHex(6)}`,
        `Orders hook: 200 in 84 ms`,
        owner,
      ]);
    }
    if (i % 10 === 0)
      rows.push(['plans', 'plan.cancelled', `pln_${randomHex(6)}`, 'Spring launch', 'operator']);
  }
  for (const [n, [schema, action, subject, summary, actor]] of rows.entries()) {
    await cs.stack.db.pool.query(
      `insert into ${schema}.activity (id, brand_id, action, actor_member_id, actor_email, subject_id, summary, created_at)
       values ($1, $2, $3, '', $4, $5, $6, timestamptz '2026-11-18T09:00:00Z' + make_interval(mins => $7 * 97))`,
      [`act_${randomHex(10)}`, brandId, action, actor, subject, summary, n],
    );
  }
}

it('filters the activity page, pages it, and downloads the export of the filtered range', async () => {
  const ownerEmail = `owner-${randomHex(4)}@brand.test`;
  const { brand } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'plus',
    verified: true,
    ownerEmail,
  });
  await seed(brand.id, ownerEmail);
  const page = await signIn(browser, cs, ownerEmail);
  await page.goto(`${cs.url}/brands/${brand.id}/activity`);
  await expectAccessible(page);

  // Who and About are text boxes styled as the other fields (they had no type, and showed thin
  // and unstyled); a Who that is not one (the probe typed "owner") keeps the page: 400, the
  // form with what was typed, the refusal above it, announced, and no export of it offered
  const height = (label: string) =>
    page.getByLabel(label).evaluate((e) => e.getBoundingClientRect().height);
  const from = await height('From (UTC)');
  expect(await height('Who (email or mem_…)')).toBe(from);
  expect(await height('About (id)')).toBe(from);
  await page.getByLabel('Who (email or mem_…)').fill('owner');
  const [refused] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('actor=owner')),
    page.getByRole('button', { name: 'Filter' }).click(),
  ]);
  expect(refused.status()).toBe(400);
  await page
    .getByRole('alert')
    .getByText('Enter "Who" as an email address, a member id (mem_...) or "operator".')
    .waitFor();
  const form = page.getByRole('form', { name: 'Filter activity' });
  expect(await form.getAttribute('aria-describedby')).toBe(
    await page.getByRole('alert').getAttribute('id'),
  );
  expect(await page.getByLabel('Who (email or mem_…)').inputValue()).toBe('owner');
  expect(await page.getByRole('navigation', { name: 'Sections' }).count()).toBe(1);
  expect(await page.getByRole('link', { name: 'CSV' }).count()).toBe(0);
  await expectAccessible(page);
  await screenshot(page, 'activity-refused-filter');
  await page.getByLabel('Who (email or mem_…)').fill('');

  await page.getByLabel('What').selectOption('key.');
  await page.getByLabel('From (UTC)').fill('2026-11-18T00:00');
  await page.getByLabel('Before (UTC)').fill('2026-11-26T00:00');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/action=key\./);
  const rows = page.locator('tbody tr');
  expect(await rows.count()).toBe(50);
  expect(await page.locator('tbody code:not(.hint)').allTextContents()).toEqual(
    expect.arrayContaining(['key.created', 'key.revoked', 'key.rolled']),
  );
  expect(await page.locator('tbody').textContent()).not.toContain('receiver.tested');
  await expectAccessible(page);

  await page.getByRole('link', { name: 'Older entries' }).click();
  await page.waitForURL(/cursor=/);
  expect(await rows.count()).toBe(10);
  expect(await page.getByRole('link', { name: 'Newest' }).count()).toBe(1);
  expect(await page.getByRole('link', { name: 'Older entries' }).count()).toBe(0);
  await expectAccessible(page);
  await screenshot(page, 'activity-filtered');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^activity-br_\w+-.*\.csv$/);
  const csv = await readFile(await download.path(), 'utf8');
  const lines = csv.trim().split('\r\n');
  expect(lines[0]).toBe(
    'created_at,actor_email,actor_member_id,action,subject_id,summary,id,client_address,user_agent',
  );
  expect(lines).toHaveLength(61);
  expect(lines.slice(1).every((l) => /,key\.(created|revoked|rolled),key_/.test(l))).toBe(true);
});
