// In a real browser (Debian's Chromium via playwright-core), issue 63: an owner binds keys to
// networks (a key created with an allow list, another given one on its own page), requires an
// allow list for every new key and sees which keys have none; then connects audit streams (an
// HTTPS one, whose signing secret is shown once, and a Splunk HEC one whose token is never shown
// again) and presses Test on a stream's page, whose last deliveries say the local HEC collector
// took it. axe-core checks each page; screenshots go to docs/console/ (secrets masked).
import type { Browser, Page } from 'playwright-core';
import { randomHex, waitFor } from '@brand/testkit';
import {
  splunkHecCollector,
  type Collector,
} from '../../../services/webhooks/test/support/auditCollectors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { expectAccessible, launchChromium, reloadPage, screenshot, signIn } from './browserKit';

const HEC_TOKEN = 'b3f1e2d4-7c6a-4b5e-9d8f-0a1b2c3d4e5f';

let cs: ConsoleStack;
let browser: Browser;
let hec: Collector;

beforeAll(async () => {
  cs = await startConsoleStack();
  browser = await launchChromium();
  hec = await splunkHecCollector(cs.ca.tls, HEC_TOKEN);
}, 180_000);
afterAll(async () => {
  await hec?.close();
  await browser?.close();
  await cs?.close();
});

it('binds keys to networks and requires an allow list for new keys', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'enterprise',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  await cs.stack.admin.createKey({
    brandId: brand.id,
    actorEmail: owner.email,
    name: 'Legacy export',
  });
  const page: Page = await signIn(browser, cs, owner.email);
  await page.goto(`${cs.url}/brands/${brand.id}/keys`);

  await page.getByLabel('Name (the integration that will use it)').fill('SIEM puller');
  await page
    .getByRole('textbox', { name: /^Allowed networks/ })
    .fill('203.0.113.0/24\n2001:db8::/32');
  await page.getByLabel(/Read the audit log/).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('heading', { name: 'Your new key “SIEM puller”' }).waitFor();
  await page.getByRole('link', { name: 'Back to API keys' }).click();
  const row = page.getByRole('row', { name: /SIEM puller/ });
  await row.getByText('203.0.113.0/24').waitFor();
  await row.getByText('read records, audit:read').waitFor();

  // a network written with host bits is refused in words, with the form kept
  await page.getByLabel('Name (the integration that will use it)').fill('Typo');
  await page.getByRole('textbox', { name: /^Allowed networks/ }).fill('10.0.0.1/8');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByText(/host bits set: the network is 10\.0\.0\.0\/8/).waitFor();

  await page.getByLabel('Require allowed networks for every new key').check();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await page.getByText('Every new key must now have allowed networks.', { exact: false }).waitFor();
  const legacy = page.getByRole('row', { name: /Legacy export/ });
  await legacy.getByText('no allow list').waitFor();
  await page.getByText('One active key works from any network:').waitFor();
  await expectAccessible(page);
  await screenshot(page, 'keys-networks');

  await page.getByRole('link', { name: 'Allowed networks of Legacy export' }).click();
  await page.getByRole('heading', { name: 'Allowed networks of “Legacy export”' }).waitFor();
  await page.getByRole('textbox', { name: /^Allowed networks/ }).fill('198.51.100.7');
  await expectAccessible(page);
  await screenshot(page, 'key-networks');
  await page.getByRole('button', { name: 'Save networks' }).click();
  await page.getByText("The key's allowed networks are saved.", { exact: false }).waitFor();
  await page.getByText('Every active key has allowed networks.').waitFor();
  await page.context().close();
});

it('connects audit streams, shows an HTTPS secret once, and tests a Splunk stream', async () => {
  const { brand, owner } = await cs.stack.admin.createBrand({
    name: 'Demo Brand',
    tier: 'enterprise',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const page: Page = await signIn(browser, cs, owner.email);
  await page.goto(`${cs.url}/brands/${brand.id}/audit-streams`);
  await page.getByRole('heading', { name: 'Audit streams' }).waitFor();
  await page.getByText('No audit streams yet.').waitFor();

  // a destination inside the network is refused at save, in words, with a 400
  await page.getByRole('radio', { name: 'Splunk HEC' }).check();
  await page.getByLabel('Name', { exact: true }).fill('Splunk (security)');
  await page
    .getByLabel('URL', { exact: true })
    .fill('https://10.0.0.8:8088/services/collector/event');
  await page.getByLabel('Splunk HEC token or Datadog API key').fill(HEC_TOKEN);
  const refused = page.waitForResponse((r) => r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Connect stream' }).click();
  expect((await refused).status()).toBe(400);
  await page.getByText(/not a public address/).waitFor();

  await page.getByLabel('URL', { exact: true }).fill(hec.url);
  await page.getByLabel('Splunk HEC token or Datadog API key').fill(HEC_TOKEN);
  await page.getByLabel('Splunk index (optional)').fill('brand_audit');
  await page.getByRole('button', { name: 'Connect stream' }).click();
  await page.getByText('The stream is connected', { exact: false }).waitFor();
  expect(await page.content()).not.toContain(HEC_TOKEN);

  await page.getByRole('button', { name: 'Test' }).click();
  await page.getByText('A test entry is queued', { exact: false }).waitFor();
  await waitFor(() => hec.received.some((r) => r.entry.test) || undefined, {
    timeoutMs: 15_000,
    what: 'the test entry at the HEC collector',
  });
  await waitFor(
    async () => {
      await reloadPage(page);
      return (await page.getByRole('cell', { name: 'Delivered' }).count()) > 0;
    },
    { timeoutMs: 15_000, what: 'the test delivery shown as delivered' },
  );
  expect(await page.content()).not.toContain(HEC_TOKEN);
  await expectAccessible(page);
  await screenshot(page, 'audit-stream');

  await page.getByRole('link', { name: 'Audit streams', exact: true }).first().click();
  await page.getByRole('radio', { name: 'HTTPS (JSON lines)' }).check();
  await page.getByLabel('Name', { exact: true }).fill('SIEM collector');
  await page
    .getByLabel('URL', { exact: true })
    .fill(`${hec.url.replace(/\/services.*$/, '')}/audit`);
  await page.getByRole('button', { name: 'Connect stream' }).click();
  await page.getByRole('heading', { name: '“SIEM collector” is connected' }).waitFor();
  const secret = page.locator('#new-secret');
  await expect(secret.textContent()).resolves.toMatch(/^whsec_/);
  await expectAccessible(page);
  await screenshot(page, 'audit-stream-secret', [secret]);
  // shown once: a reload shows it no more
  expect(await reloadPage(page)).toBe(410);

  await page.goto(`${cs.url}/brands/${brand.id}/audit-streams`);
  await page.getByRole('link', { name: 'SIEM collector' }).waitFor();
  await page.getByRole('link', { name: 'Splunk (security)' }).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'audit-streams');
  await page.context().close();
});
