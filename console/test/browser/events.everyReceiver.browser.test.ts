// In a real browser (Debian's Chromium via playwright-core): the Events page lists every business
// event of the brand newest first with what became of it at each receiver (state, attempts, the
// last answer); filters by type and by event or record id find one; a receiver's delivery log
// links to it; "Resend to the receivers that failed" queues the failed deliveries again and the
// receiver then verifies them. axe-core checks the page; screenshots go to docs/console/.
import { waitFor } from '@brand/testkit';
import { expectAccessible, screenshot } from './browserKit';
import { receiverPages } from './receiverPages';

const { cs, ownerPage, receiverFor, approve, logOf } = receiverPages();

it('shows each event at every receiver, finds one, and resends to the receivers that failed', async () => {
  const { brandId, page } = await ownerPage();
  const orders = await receiverFor(brandId);
  // the second receiver is down (500) until the resend below
  let ledgerDown = true;
  const ledger = await receiverFor(brandId, {
    label: 'Ledger',
    respondWith: () => (ledgerDown ? { status: 500, body: 'ledger is down' } : undefined),
  });
  const [first, second] = await approve(brandId, 2);
  await waitFor(
    async () =>
      (await logOf(ledger.receiver.id)).every((d) => d.attempt_count >= 1) &&
      (await logOf(ledger.receiver.id)).length === 2,
    { timeoutMs: 30_000 },
  );
  await waitFor(async () => (await logOf(orders.receiver.id)).length === 2, { timeoutMs: 30_000 });
  // The retry schedule would take hours to give up: the ledger's deliveries are marked failed
  // as its last retry would leave them, so the page has failures to resend.
  await cs().stack.db.pool.query(
    `update webhooks.deliveries set status = 'failed', completed_at = now(),
       last_status = 500, last_error = '500 from the receiver'
     where receiver_id = $1`,
    [ledger.receiver.id],
  );

  await page.goto(`${cs().url}/brands/${brandId}/events`);
  await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
  // newest first: the second approval leads
  const headings = page.locator('section.event code.hint');
  expect(await headings.allTextContents()).toEqual([second, first]);
  for (const eventId of [first!, second!]) {
    const block = page.locator(`section[aria-labelledby="ev-${eventId}"]`);
    await block.getByRole('link', { name: 'Order system' }).waitFor();
    await block.getByRole('link', { name: 'Ledger' }).waitFor();
    await block.getByText('Delivered: the receiver answered 2xx').waitFor();
    await block.getByText('Failed', { exact: true }).waitFor();
    await block.getByText('HTTP 500').waitFor();
  }
  await expectAccessible(page);
  await screenshot(page, 'events');

  // filters: by type (none of payout.paid), then by event id
  await page.getByLabel('Event', { exact: true }).selectOption('payout.paid');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No events match.').waitFor();
  await page.goto(`${cs().url}/brands/${brandId}/receivers/${ledger.receiver.id}`);
  await page.getByRole('link', { name: 'At every receiver' }).first().click();
  await page.waitForURL(/\/events\?find=evt_/);
  expect(await page.locator('section.event').count()).toBe(1);
  const shown = (await page.locator('section.event code.hint').textContent())!;

  // resend to the receivers that failed: the ledger, up again, gets the event and verifies it
  ledgerDown = false;
  await page.getByRole('button', { name: /Resend to the 1 receiver that failed/ }).click();
  await page.getByText('1 failed delivery queued again').waitFor();
  await ledger.server.waitFor(
    () => ledger.server.received.some((d) => d.outcome === 'processed' && d.event?.id === shown),
    30_000,
  );
  await page.reload();
  await page.getByText('Delivered: the receiver answered 2xx').nth(1).waitFor({ timeout: 30_000 });
  await expectAccessible(page);
  await screenshot(page, 'events-resent');
});
