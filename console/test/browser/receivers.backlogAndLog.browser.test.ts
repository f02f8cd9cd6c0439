// In a real browser (Debian's Chromium via playwright-core), against HTTPS receivers that verify
// every delivery as docs/contract.md#receiver-verification says: after an outage a receiver's
// overview shows the backlog waiting, Recover since counts it, "Retry all waiting" sends it in one
// action, and the receiver reads "Catching up" while it drains; the delivery log filters by state
// and by event id, pages through a receiver's deliveries, and says what is wrong with a filter
// that is not one; each of a receiver's tabs stays within two screens of a laptop with such a
// log (issue 62). (Rotation, the failing flag, Retry now and the health chart:
// receivers.dayTwo.browser.test.ts.) axe-core checks each page; screenshots go to docs/console/
// (npm run console:screenshots).
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { waitFor } from '@brand/testkit';
import {
  atPhoneWidth,
  expectAccessible,
  LAPTOP,
  pageHeight,
  screenshot,
  screenshotOf,
} from './browserKit';
import { receiverPages } from './receiverPages';

const { cs, ownerPage, receiverFor, approve, logOf, verified, awaitAttempts } = receiverPages();

it('shows a backlog waiting after an outage, retries every waiting delivery in one action, and reads "Catching up" while they drain', async () => {
  const { brandId, page } = await ownerPage();
  let down = true;
  // down: 400 (retries 50 ms, 3 s, 18 s, 72 s at this stack's time scale); back: slow 2xx
  const r = await receiverFor(brandId, {
    respondWith: () =>
      down ? { status: 400, body: 'maintenance' } : { status: 204, delayMs: 1_500 },
  });
  const outage = new Date(Date.now() - 60_000);
  const lost = await approve(brandId, 6);
  // four failures each: the next attempt is then 72 s away, so none is in flight (and left out
  // of the counts) while the page is looked at and the recovery previewed
  await awaitAttempts(r.receiver.id, lost, 4, {
    timeoutMs: 45_000,
    what: 'six deliveries waiting after four failures each',
  });

  // the overview says what waits, with the failure
  const base = `${cs().url}/brands/${brandId}/receivers/${r.receiver.id}`;
  await page.goto(base);
  await page
    .getByText(/6 deliveries waiting, the oldest from/)
    .first()
    .waitFor();
  await page.getByText(/Backlog/).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'receiver-backlog');

  // Recover since counts the waiting deliveries (the receiver stays down until the click, so
  // nothing drains the backlog by itself first); its preview changes nothing
  await page.goto(`${base}/recovery`);
  await page.getByLabel('Since (UTC)').fill(outage.toISOString().slice(0, 16));
  await page.getByRole('button', { name: 'Preview' }).click();
  expect(await page.locator('p.lead').first().textContent()).toMatch(
    /: 0 deliveries failed and 6 deliveries waiting for a retry\.$/,
  );
  await expectAccessible(page);
  await screenshot(page, 'receiver-recover');
  await page.getByRole('link', { name: 'Cancel' }).click();

  // Retry all waiting: each gets its next attempt now (its 5th of 10), and the log says so
  await page.getByText(/Each gets its next attempt now, oldest first: one of its 10/).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'receiver-retry-waiting');
  down = false;
  await page.getByRole('button', { name: 'Retry 6 waiting deliveries now' }).click();
  await page.waitForURL(/\/deliveries\?state=waiting&done=retried-waiting&made_due=6&remaining=0$/);
  await page.getByText('6 waiting deliveries get their next attempt now').waitFor();

  // while they drain, at the receiver's pace, it reads "Catching up", never OK
  await waitFor(
    async () => {
      await page.reload();
      return (await page.getByText('Catching up').count()) > 0;
    },
    { timeoutMs: 15_000, intervalMs: 200, what: 'the receiver catching up' },
  );
  expect(await page.getByText('OK: the last attempt succeeded').count()).toBe(0);
  await expectAccessible(page);
  await screenshot(page, 'receiver-catching-up');
  await waitFor(
    async () =>
      (await logOf(r.receiver.id)).filter(
        (d) => lost.includes(d.event_id) && d.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
      ).length === 6,
    { timeoutMs: 30_000, what: 'all six delivered' },
  );
  await page.goto(base);
  await page.getByText('Nothing waits').waitFor();
});

it('filters the delivery log by state and by event id, and pages through it', async () => {
  const { brandId, page } = await ownerPage();
  // business events are taken; a Test delivery is refused (500) and so fails at once
  const r = await receiverFor(brandId, {
    respondWith: (_n, d) => (d.verdict.ok && d.verdict.event.test ? 500 : undefined),
  });
  const ids = await approve(brandId, 55);
  await r.server.waitFor(() => ids.every((id) => verified(r, id)), 30_000);
  const receiver = `${cs().url}/brands/${brandId}/receivers/${r.receiver.id}`;
  const base = `${receiver}/deliveries`;
  await page.goto(`${receiver}/testing`);
  await page.getByRole('button', { name: 'Test' }).click();
  await waitFor(
    async () =>
      (await logOf(r.receiver.id, { status: DeliveryStatus.DELIVERY_STATUS_FAILED })).length === 1,
    { timeoutMs: 20_000, what: 'the failed Test delivery' },
  );

  // 56 deliveries, one line each: the newest 25, 25 older, the 6 oldest, and back
  const log = page.locator('section[aria-labelledby="log"]');
  await page.goto(base);
  expect(await log.locator('tbody tr').count()).toBe(25);
  await log.getByRole('link', { name: 'Older deliveries' }).click();
  expect(await log.locator('tbody tr').count()).toBe(25);
  await log.getByRole('link', { name: 'Older deliveries' }).click();
  expect(await log.locator('tbody tr').count()).toBe(6);
  await log.getByRole('link', { name: 'Newest deliveries' }).click();
  expect(await log.locator('tbody tr').count()).toBe(25);

  // only the failed ones: the Test
  await log.getByLabel('State').selectOption('failed');
  await log.getByRole('button', { name: 'Filter' }).click();
  expect(await log.locator('tbody tr').count()).toBe(1);
  await log.getByText('(test)').waitFor();
  expect(await log.getByRole('link', { name: 'Older deliveries' }).count()).toBe(0);
  await expectAccessible(page);

  // one event by its id, the filter kept in the form
  await log.getByLabel('State').selectOption('');
  await log.getByLabel('Event or record id').fill(ids[7]!);
  await log.getByRole('button', { name: 'Filter' }).click();
  expect(await log.locator('tbody tr').count()).toBe(1);
  await log.getByText(ids[7]!).waitFor();
  expect(await log.getByLabel('Event or record id').inputValue()).toBe(ids[7]);
  expect(await log.getByRole('link', { name: 'Clear filters' }).count()).toBe(1);
  await screenshotOf(log, 'receiver-log-filtered');

  // a filter that is not one: said in words above the form, which keeps what was typed,
  // status 400, nothing listed until it is corrected (as on Events and Activity)
  const bad = await page.goto(`${base}?find=${encodeURIComponent('<b>x</b>')}&state=lost`);
  expect(bad?.status()).toBe(400);
  await page.getByText('Choose a state: delivered, waiting or failed.').waitFor();
  await page.getByText(/Find takes an event id/).waitFor();
  expect(await log.getByLabel('Event or record id').inputValue()).toBe('<b>x</b>');
  expect(await log.locator('tbody tr').count()).toBe(1);
  await log.getByText('Correct the filter above to see deliveries.').waitFor();
  const foreignCursor = await page.goto(`${base}?cursor=bm90LWEtY3Vyc29y`);
  expect(foreignCursor?.status()).toBe(400);
  await page.getByText(/not a cursor of this list/).waitFor();

  // each tab of a receiver with this log stays within two screens of a laptop
  const heights: Record<string, number> = {};
  for (const tab of ['', '/deliveries', '/testing', '/recovery', '/settings']) {
    await page.goto(`${receiver}${tab}`);
    const name = tab === '' ? 'receiver' : `receiver-${tab.slice(1)}`;
    heights[name] = await pageHeight(page);
    await expectAccessible(page);
    await screenshot(page, name);
  }
  expect(Object.entries(heights).filter(([, h]) => h > 2 * LAPTOP.height)).toEqual([]);
  process.stdout.write(`receiver tab heights at 1280 px: ${JSON.stringify(heights)}\n`);
  await page.goto(base);
  await atPhoneWidth(page, 'receiver-deliveries');
});
