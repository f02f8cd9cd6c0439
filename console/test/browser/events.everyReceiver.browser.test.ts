// In a real browser (Debian's Chromium via playwright-core), as an owner uses the brand's pages
// (issue 62): the Events page lists each event on one line, at least 10 above the fold of a
// 1280x900 screen, and opens a line on each receiver's delivery; a waiting delivery is retried
// from its event and the delivery's page says what became of that attempt; a failed one is
// resent; a record's id leads to every event of that record. The brand's overview is its home
// (receivers needing attention first, the day's deliveries and requests as charts, failures,
// plans, expiring keys), the navigation is a side bar marking the current page, and the
// Deliveries page logs every receiver's deliveries with the log's filters. Each page at 1280 and
// 390 px is checked by axe-core; screenshots go to docs/console/ (npm run console:screenshots).
import { randomUUID } from 'node:crypto';
import { planBody, waitFor } from '@brand/testkit';
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { atPhoneWidth, expectAccessible, LAPTOP, screenshot } from './browserKit';
import { receiverPages } from './receiverPages';

const { cs, ownerPage, receiverFor, approve, reject, logOf, awaitAttempts } = receiverPages();

it('lists events one line each, opens one on its receivers, retries a waiting delivery from it and resends a failed one', async () => {
  const { brandId, page } = await ownerPage();
  const base = `${cs().url}/brands/${brandId}`;
  const orders = await receiverFor(brandId);
  // the ledger is down (500) until the retry below
  let ledgerDown = true;
  const ledger = await receiverFor(brandId, {
    label: 'Ledger',
    respondWith: () => (ledgerDown ? { status: 500, body: 'ledger is down' } : undefined),
  });
  const [first, second] = await approve(brandId, 2);
  // events no receiver selected: most of a brand's events, as in the 57 of 61
  const rejected = await reject(brandId, 12);
  // four refusals each: the ledger's next attempt is then ~72 s away (RETRY_TIME_SCALE 0.01)
  await awaitAttempts(ledger.receiver.id, [first!, second!], 4, {
    timeoutMs: 60_000,
    what: "the ledger's deliveries refused four times",
  });
  await waitFor(async () => (await logOf(orders.receiver.id)).length === 2, { timeoutMs: 30_000 });
  // the first event's delivery at the ledger failed for good, as its last retry would leave it
  await cs().stack.db.pool.query(
    `update webhooks.deliveries set status = 'failed', completed_at = now()
     where receiver_id = $1 and event_id = $2`,
    [ledger.receiver.id, first],
  );

  await page.goto(`${base}/events`);
  const rows = page.locator('table.events tbody tr');
  // newest first: the rejections came last
  expect(await rows.count()).toBe(14);
  expect(await rows.first().getAttribute('id')).toBe(`ev-${rejected.at(-1)!}`);
  const aboveFold = await rows.evaluateAll(
    (trs) => trs.filter((tr) => tr.getBoundingClientRect().bottom <= window.innerHeight).length,
  );
  expect(aboveFold).toBeGreaterThanOrEqual(10);
  expect(await page.locator('table.events summary', { hasText: 'none selected' }).count()).toBe(12);
  const firstRow = page.locator(`#ev-${first!}`);
  const secondRow = page.locator(`#ev-${second!}`);
  await firstRow.getByText('1 delivered', { exact: true }).waitFor();
  await firstRow.getByText('1 failed', { exact: true }).waitFor();
  await secondRow.getByText('1 waiting', { exact: true }).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'events');
  await atPhoneWidth(page, 'events');

  // a line opens on each receiver's delivery, with what it may do
  await secondRow.locator('summary').click();
  await secondRow.getByRole('link', { name: 'Order system' }).waitFor();
  await secondRow.getByText(/Waiting to retry, 4 of 10 attempts, 500 from the receiver/).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'events-open');

  // Retry now from the event, the ledger back: the delivery's page says what became of it
  ledgerDown = false;
  await secondRow
    .getByRole('button', { name: /^Retry delivery dlv_\w+ now \(attempt 5 of 10\)$/ })
    .click();
  await page.waitForURL(/\/deliveries\/dlv_\w+\?done=retried&attempt=5$/);
  await page
    .getByText('The retry was delivered: attempt 5 of 10 got HTTP 200.')
    .waitFor({ timeout: 30_000 });
  expect(await page.getByText('due now').count()).toBe(0);
  await expectAccessible(page);

  // the first event: resend to the receiver that failed; the ledger then verifies it
  await page.goto(`${base}/events?find=${first!}`);
  expect(await rows.count()).toBe(1);
  await firstRow.locator('summary').click();
  await firstRow.getByRole('button', { name: 'Resend to the 1 receiver that failed' }).click();
  await page.getByText('1 failed delivery queued again').waitFor();
  await ledger.server.waitFor(
    () => ledger.server.received.some((d) => d.outcome === 'processed' && d.event?.id === first),
    30_000,
  );
  // The receiver counts the resend as it answers it; the worker records the success once the
  // answer is back, so a page drawn in between still shows 1 delivered, and a drawn page does not
  // change by itself (a fresh-clone run, 2026-11-30, reloaded once and waited 30 s on it).
  // Reload until the page shows it, up to 30 s.
  const twoDelivered = firstRow.getByText('2 delivered', { exact: true });
  const until = Date.now() + 30_000;
  do {
    await page.reload();
    if ((await twoDelivered.count()) > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  } while (Date.now() < until);
  await twoDelivered.waitFor({ timeout: 1_000 });
  await expectAccessible(page);

  // the record's id: every event of that record (its approval, here)
  await firstRow.getByRole('link', { name: /^sub_/ }).click();
  await page.waitForURL(/\/events\?find=sub_/);
  expect(await rows.count()).toBe(1);
  // a time typed in UTC, a day alone: nothing after tomorrow; a time that is not one is refused
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel('From (UTC)').fill(tomorrow);
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No events match.').waitFor();
  expect((await page.goto(`${base}/events?since=11%2F20%2F2026`))?.status()).toBe(400);
  await page.getByText(/as a UTC time, for example 2026-11-20 14:00/).waitFor();
  // the page stays (the probe of 2026-11-30 found a bare error page): the form with what was
  // typed, the refusal announced above it; an id that is neither an event's nor a record's too
  expect(await page.getByLabel('From (UTC)').inputValue()).toBe('11/20/2026');
  await page
    .getByRole('alert')
    .getByText(/^since: enter "From" as a UTC time/)
    .waitFor();
  await page.getByLabel('From (UTC)').fill('');
  await page.getByLabel('Event or record id').fill('abc');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page
    .getByRole('alert')
    .getByText(/^find: enter an event id/)
    .waitFor();
  expect(await page.getByLabel('Event or record id').inputValue()).toBe('abc');
  await page.getByText('Correct the filter above to see events.').waitFor();
  await expectAccessible(page);
});

it('makes the overview the brand’s home, with a side bar of sections, and logs every receiver’s deliveries', async () => {
  const { brandId, ownerEmail, page } = await ownerPage();
  const base = `${cs().url}/brands/${brandId}`;
  const stack = cs().stack;
  await receiverFor(brandId);
  const ledger = await receiverFor(brandId, {
    label: 'Ledger',
    respondWith: () => ({ status: 503, body: 'maintenance' }),
  });
  const events = await approve(brandId, 3);
  // an expiring key, a plan waiting for review, a few requests (one refused)
  const key = await stack.admin.createKey({
    brandId,
    actorEmail: ownerEmail,
    name: 'Warehouse sync',
    permissions: ['campaigns:prepare'],
  });
  await stack.admin.access('setKeyExpiry', {
    key_id: key.key.id,
    now: false,
    expires_at: new Date(Date.now() + 20 * 3_600_000).toISOString(),
    actor_email: '',
  });
  const planned = await fetch(`${stack.gateway.url}/api/v1/campaign-plans`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(planBody({ request_id: randomUUID(), title: 'Summer launch' })),
  });
  expect(planned.status).toBe(201);
  for (const secret of [key.secret, key.secret, 'bk_live_notAKeyOfAnyBrand0000000000000']) {
    await fetch(`${stack.gateway.url}/api/v1/payouts?limit=5`, {
      headers: { authorization: `Bearer ${secret}` },
    });
  }
  await awaitAttempts(ledger.receiver.id, events, 2, {
    timeoutMs: 60_000,
    what: "the ledger's deliveries refused twice",
  });

  // a member of one brand: the console's address leads to the brand's overview
  await page.goto(`${cs().url}/`);
  await page.waitForURL(`${base}`);
  const nav = page.getByRole('navigation', { name: 'Sections' });
  expect(await nav.getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe(
    'page',
  );
  // a side bar beside the page on a laptop, every section in view without scrolling
  const [navBox, mainBox] = [await nav.boundingBox(), await page.locator('main').boundingBox()];
  expect(navBox!.x + navBox!.width).toBeLessThanOrEqual(mainBox!.x);
  const sectionLinks = nav.getByRole('link');
  const names = await sectionLinks.allTextContents();
  for (const name of ['Overview', 'API keys', 'Usage', 'Request log', 'Receivers', 'Events'])
    expect(names).toContain(name);
  for (const name of ['Deliveries', 'Campaign plans', 'Members', 'Single sign-on', 'Activity'])
    expect(names).toContain(name);
  for (const box of await sectionLinks.evaluateAll((as) =>
    as.map((a) => a.getBoundingClientRect().bottom),
  ))
    expect(box).toBeLessThanOrEqual(LAPTOP.height);

  // the receivers, the one failing first; its newest failures, each linked to its delivery
  const receivers = page.locator('section[aria-labelledby="ov-receivers"] tbody tr');
  await receivers.first().getByText('Ledger').waitFor();
  await receivers.first().getByText('Failing').waitFor();
  const failures = page.locator('section[aria-labelledby="ov-failures"] tbody tr');
  expect(await failures.count()).toBe(3);
  expect(await failures.first().getByRole('link').first().getAttribute('href')).toMatch(
    new RegExp(`/receivers/${ledger.receiver.id}/deliveries/dlv_`),
  );
  await page.getByText('1 of 200').waitFor();
  await page.getByText(/Warehouse sync .*expires in 19 h/).waitFor();
  await page.locator('#ov-deliveries-chart-title').waitFor({ state: 'attached' });
  await page.locator('section[aria-labelledby="ov-deliveries"] rect.failed').first().waitFor();
  // usage reaches records within about 10 s (each gateway flushes every 5 s)
  await waitFor(
    async () => {
      await page.reload();
      return (await page.locator('section[aria-labelledby="ov-requests"] rect.o2xx').count()) > 0;
    },
    { timeoutMs: 30_000, intervalMs: 1_000, what: 'the requests in the overview chart' },
  );
  await expectAccessible(page);
  await screenshot(page, 'overview');
  await atPhoneWidth(page, 'overview');

  // every delivery of the brand, each with its receiver; the log's filters
  await nav.getByRole('link', { name: 'Deliveries' }).click();
  await page.getByRole('heading', { name: 'Deliveries', level: 1 }).waitFor();
  const log = page.locator('table.log tbody tr');
  expect(await log.count()).toBe(6);
  expect(await log.getByRole('link', { name: 'Ledger' }).count()).toBe(3);
  expect(await log.getByRole('link', { name: 'Order system' }).count()).toBe(3);
  await page.getByLabel('State').selectOption('waiting');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/state=waiting/);
  expect(await log.count()).toBe(3);
  expect(await log.getByRole('button', { name: /^Retry delivery/ }).count()).toBe(3);
  expect(
    (await logOf(ledger.receiver.id)).every(
      (d) => d.status === DeliveryStatus.DELIVERY_STATUS_PENDING,
    ),
  ).toBe(true);
  await expectAccessible(page);
  await screenshot(page, 'deliveries');
  await atPhoneWidth(page, 'deliveries');
});
