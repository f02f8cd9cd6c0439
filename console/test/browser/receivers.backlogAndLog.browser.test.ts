// In a real browser (Debian's Chromium via playwright-core), against HTTPS receivers that verify
// every delivery as docs/contract.md#receiver-verification says: after an outage a receiver's
// page shows the backlog waiting, Recover since counts and sends the waiting deliveries in one
// action, and the receiver reads "Catching up" while they drain; the delivery log filters by
// state and by event id, pages through a receiver's deliveries, and says what is wrong with a
// filter that is not one. (Rotation, the failing flag, Retry now and the health chart:
// receivers.dayTwo.browser.test.ts.) axe-core checks each page; screenshots go to docs/console/
// (npm run console:screenshots).
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { waitFor } from '@brand/testkit';
import { expectAccessible, screenshot, screenshotOf } from './browserKit';
import { receiverPages } from './receiverPages';

const { cs, ownerPage, receiverFor, approve, logOf, verified, awaitAttempts } = receiverPages();

it('shows a backlog waiting after an outage, recovers the waiting deliveries in one action, and reads "Catching up" while they drain', async () => {
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

  // the page says what waits, with the failure
  await page.goto(`${cs().url}/brands/${brandId}/receivers/${r.receiver.id}`);
  await page
    .getByText(/6 deliveries waiting, the oldest from/)
    .first()
    .waitFor();
  await page.getByText(/Backlog/).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'receiver-backlog');

  // Recover since: the waiting deliveries are counted and sent in one action. The receiver
  // stays down until the click, so nothing drains the backlog by itself first.
  await page.getByLabel('Since (UTC)').fill(outage.toISOString().slice(0, 16));
  await page.getByRole('button', { name: 'Preview' }).click();
  expect(await page.locator('p.lead').first().textContent()).toMatch(
    /: 0 deliveries failed and 6 deliveries waiting for a retry\.$/,
  );
  await expectAccessible(page);
  await screenshot(page, 'receiver-recover');
  down = false;
  await page.getByRole('button', { name: 'Send 6 deliveries now' }).click();
  await page.getByText(/\d deliver(y is|ies are) being sent now/).waitFor();

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
  await page.reload();
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
  const base = `${cs().url}/brands/${brandId}/receivers/${r.receiver.id}`;
  await page.goto(base);
  await page.getByRole('button', { name: 'Test' }).click();
  await waitFor(
    async () =>
      (await logOf(r.receiver.id, { status: DeliveryStatus.DELIVERY_STATUS_FAILED })).length === 1,
    { timeoutMs: 20_000, what: 'the failed Test delivery' },
  );

  // 56 deliveries: the newest 50, then the 6 older ones, and back
  const log = page.locator('section[aria-labelledby="log"]');
  await page.goto(base);
  expect(await log.locator('tbody tr').count()).toBe(50);
  await log.getByRole('link', { name: 'Older deliveries' }).click();
  expect(await log.locator('tbody tr').count()).toBe(6);
  await log.getByRole('link', { name: 'Newest deliveries' }).click();
  expect(await log.locator('tbody tr').count()).toBe(50);

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

  // a filter that is not one: said in words, status 400, the newest deliveries shown
  const bad = await page.goto(`${base}?find=${encodeURIComponent('<b>x</b>')}&state=lost`);
  expect(bad?.status()).toBe(400);
  await page.getByText('Choose a state: delivered, waiting or failed.').waitFor();
  await page.getByText(/Find takes an event id/).waitFor();
  expect(await log.locator('tbody tr').count()).toBe(50);
  const foreignCursor = await page.goto(`${base}?cursor=bm90LWEtY3Vyc29y`);
  expect(foreignCursor?.status()).toBe(400);
  await page.getByText(/not a cursor of this list/).waitFor();
});
