// The console's side of receivers on day 2, over HTTP against real records, webhooks (real HTTPS
// receivers that verify signatures as docs/contract.md#receiver-verification says), plans, gateway,
// SMTP sink and console: rotating a signing secret (the new one shown once, a Test signed with it,
// switch now or later, cancel), Retry now, Recover since (bounded, idempotent under a double click,
// refused for a disabled receiver), a hostile receiver answer shown inert, the failing flag and the
// one notice on every brand page, and the mail to owners (only) when the service disables a
// receiver. Every new form checks Origin and the CSRF token; non-owners are refused.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DeliveryStatus, type Delivery, ListDeliveriesRequest } from '@brand/proto/webhooks/v1';
import { randomHex, waitFor, type RegisteredReceiver, type WebhooksClient } from '@brand/testkit';
import { csrfOf } from '../browserlessClient';
import {
  approveSubmissions,
  brandWithOwner as brandWithOwnerOf,
  signInHttp,
  startReceiverStack,
  type ReceiverStack,
} from '../consoleActors';
import type { ConsoleStack } from '../consoleStack';

let rs: ReceiverStack;
let cs: ConsoleStack;
let admin: WebhooksClient;

beforeAll(async () => {
  rs = await startReceiverStack({
    RECEIVER_NOTICE_INTERVAL_MS: '300',
    RECEIVER_NOTICE_LEASE_MS: '5000',
  });
  ({ cs, admin } = rs);
}, 120_000);
afterAll(() => rs?.close());

const brandWithOwner = () => brandWithOwnerOf(cs);
const signIn = (email: string) => signInHttp(cs, email);
const approve = (brandId: string, n = 1) => approveSubmissions(cs, brandId, n);
const receiverFor: ReceiverStack['receiverFor'] = (brandId, opts = {}) =>
  rs.receiverFor(brandId, { label: `Orders ${randomHex(2)}`, ...opts });

async function deliveriesOf(receiverId: string): Promise<Delivery[]> {
  return (
    await admin.call(
      'listDeliveries',
      ListDeliveriesRequest.fromPartial({ receiver_id: receiverId, brand_id: '', limit: 100 }),
    )
  ).deliveries;
}

const verifiedBy = (r: RegisteredReceiver) =>
  r.server.received.filter((d) => d.outcome === 'processed' || d.outcome === 'duplicate');

describe('rotating a signing secret', () => {
  it('shows the new secret once, tests it, switches later or now, and cancels; forms check Origin and CSRF', async () => {
    const { brand, owner } = await brandWithOwner();
    const r = await receiverFor(brand.id);
    const http = await signIn(owner.email);
    const base = `/brands/${brand.id}/receivers/${r.receiver.id}`;
    const settings = `${base}/settings`;
    const page = await http.get(settings);
    expect(page.body).toContain('Rotate the signing secret');
    const csrf = csrfOf(page.body);

    // Forged requests change nothing.
    expect(
      (await http.post(`${base}/rotate`, { _csrf: csrf }, { origin: 'https://evil.example' }))
        .status,
    ).toBe(403);
    expect((await http.post(`${base}/rotate`, {})).status).toBe(403);
    expect(
      (await admin.call('getReceiver', { receiver_id: r.receiver.id })).receiver?.rotation,
    ).toBeUndefined();

    const rotated = await http.post(`${base}/rotate`, { _csrf: csrf });
    expect(rotated.status).toBe(303);
    const shown = await http.get(rotated.location!);
    expect(shown.status).toBe(200);
    const newSecret = /(whsec_[A-Za-z0-9_-]+)/.exec(shown.body)?.[1];
    expect(newSecret).toBeDefined();
    expect(newSecret).not.toBe(r.secret);
    const again = await http.get(rotated.location!);
    expect(again.status).toBe(410);
    expect(again.body).not.toContain(newSecret);

    // A second rotation while one is pending is refused in words.
    const twice = await http.post(`${base}/rotate`, { _csrf: csrf });
    expect(twice.status).toBe(422);

    // Until the switch, deliveries stay signed with the current secret.
    const [before] = await approve(brand.id);
    await r.server.waitFor(() => verifiedBy(r).some((d) => d.event?.id === before), 20_000);

    // The receiver holds both; a Test signed with the new secret is accepted, and the page says so.
    r.secrets.push(newSecret!);
    const tested = await http.post(`${base}/test`, {
      _csrf: csrf,
      event_type: 'payout.paid',
      with_new_secret: '1',
    });
    expect(tested.status).toBe(303);
    expect(tested.location).toBe(`${settings}?done=new-secret-tested`);
    await waitFor(
      async () =>
        (await http.get(settings)).body.includes('Accepted: your receiver verified the new secret'),
      {
        timeoutMs: 20_000,
        what: 'the test with the new secret accepted',
      },
    );

    // A switch in the past is refused; in 1 hour is scheduled; now switches.
    const past = await http.post(`${base}/switch-secret`, {
      _csrf: csrf,
      when: 'at',
      at: '2020-01-01T00:00',
    });
    expect(past.status).toBe(400);
    expect(past.body).toContain('That time has passed');
    const later = await http.post(`${base}/switch-secret`, { _csrf: csrf, when: '1h' });
    expect(later.status).toBe(303);
    const scheduled = await http.get(settings);
    expect(scheduled.body).toContain('The switch is scheduled for');
    const now = await http.post(`${base}/switch-secret`, { _csrf: csrf, when: 'now' });
    expect(now.status).toBe(303);
    expect((await http.get(now.location!)).body).toContain(
      'Switched: the new secret signs every delivery',
    );

    // Only the new secret works now: the receiver drops the old one and still verifies.
    r.secrets.splice(0, r.secrets.length, newSecret!);
    const [after] = await approve(brand.id);
    await r.server.waitFor(() => verifiedBy(r).some((d) => d.event?.id === after), 20_000);

    // Cancel: a second rotation discarded before its switch; the current secret keeps signing.
    expect((await http.post(`${base}/rotate`, { _csrf: csrf })).status).toBe(303);
    const cancelled = await http.post(`${base}/cancel-rotation`, { _csrf: csrf });
    expect(cancelled.status).toBe(303);
    expect((await http.get(cancelled.location!)).body).toContain('The rotation is cancelled');
    expect(
      (await admin.call('getReceiver', { receiver_id: r.receiver.id })).receiver?.rotation,
    ).toBeUndefined();
    const [last] = await approve(brand.id);
    await r.server.waitFor(() => verifiedBy(r).some((d) => d.event?.id === last), 20_000);
  });

  it('lets a non-owner see the secret section but not rotate: no form, and the POST is refused', async () => {
    const { brand } = await brandWithOwner();
    const r = await receiverFor(brand.id);
    const email = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email, role: 'admin' });
    const http = await signIn(email);
    const base = `/brands/${brand.id}/receivers/${r.receiver.id}`;
    const page = await http.get(`${base}/settings`);
    expect(page.body).toContain('Signing secret');
    expect(page.body).not.toContain(`${base}/rotate`);
    const recovery = await http.get(`${base}/recovery`);
    expect(recovery.body).toContain('Only brand owners retry and recover deliveries');
    expect(recovery.body).not.toContain(`${base}/recover"`);
    expect(recovery.body).not.toContain(`${base}/retry-waiting`);
    for (const action of ['rotate', 'switch-secret', 'cancel-rotation']) {
      const res = await http.post(`${base}/${action}`, { _csrf: csrfOf(page.body), when: 'now' });
      expect({ action, status: res.status }).toEqual({ action, status: 403 });
    }
    const recover = await http.post(`${base}/recover`, {
      _csrf: csrfOf(page.body),
      since: new Date(Date.now() - 3_600_000).toISOString(),
      request_id: '0b1d8a4e-3f1c-4c55-9d7e-2f3a4b5c6d7e',
    });
    expect(recover.status).toBe(403);
    const retryAll = await http.post(`${base}/retry-waiting`, { _csrf: csrfOf(page.body) });
    expect(retryAll.status).toBe(403);
  });
});

describe('retry now and recover since', () => {
  it('retries a waiting delivery now, and shows each attempt with the receiver answer as inert text', async () => {
    const { brand, owner } = await brandWithOwner();
    const hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const r = await receiverFor(brand.id, {
      respondWith: (n) => (n <= 3 ? { status: 400, body: hostile } : undefined),
    });
    const http = await signIn(owner.email);
    const [eventId] = await approve(brand.id);
    // Three failures, then the next attempt waits 18 s: the delivery waits to retry.
    const waiting = await waitFor(
      async () =>
        (await deliveriesOf(r.receiver.id)).find(
          (d) => d.event_id === eventId && d.attempt_count === 3,
        ),
      { timeoutMs: 20_000, what: 'three failed attempts' },
    );
    expect(waiting.status).toBe(DeliveryStatus.DELIVERY_STATUS_PENDING);
    const path = `/brands/${brand.id}/receivers/${r.receiver.id}/deliveries/${waiting.id}`;
    const page = await http.get(path);
    expect(page.body).toContain('Retry now');
    expect(page.body).toContain('400 from the receiver');
    expect(page.body).toContain(
      '&lt;script>alert(&quot;x&quot;)&lt;/script>&lt;img src=x onerror=alert(1)>',
    );
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).not.toContain('<img src=x');
    // The exact event JSON sent, and the signature only as its first characters.
    expect(page.body).toContain(`&quot;id&quot;:&quot;${eventId}&quot;`);
    expect(page.body).toMatch(/sha256=[0-9a-f]{8}…/);
    expect(page.body).not.toMatch(/sha256=[0-9a-f]{9}/);

    // before the click the page says which attempt Retry now makes
    expect(page.body).toContain('Retry now makes attempt 4 of 10 now');
    const retried = await http.post(`${path}/retry`, { _csrf: csrfOf(page.body) });
    expect(retried.status).toBe(303);
    expect(retried.location).toBe(`${path}?done=retried&attempt=4`);
    await r.server.waitFor(() => verifiedBy(r).some((d) => d.event?.id === eventId), 10_000);
    const done = await waitFor(
      async () => {
        const body = (await http.get(retried.location!)).body;
        return body.includes('Delivered: the receiver answered 2xx') ? body : undefined;
      },
      { timeoutMs: 10_000, what: 'delivered after Retry now' },
    );
    expect(done).toContain('Attempt 4:');
    // the banner says what became of the attempt the retry made, not that it is due
    expect(done).toContain('The retry was delivered: attempt 4 of 10 got HTTP 200.');
    expect(done).not.toContain('due now');

    // Retry now on a finished delivery is refused in words.
    const late = await http.post(`${path}/retry`, { _csrf: csrfOf(done) });
    expect(late.status).toBe(422);
  });

  it('previews and re-queues exactly the failed deliveries since a time, once under a double click; refused while disabled', async () => {
    const { brand, owner } = await brandWithOwner();
    let down = true;
    const r = await receiverFor(brand.id, { respondWith: () => (down ? 400 : undefined) });
    const other = await receiverFor(brand.id, { events: ['payout.paid'] });
    const http = await signIn(owner.email);
    const base = `/brands/${brand.id}/receivers/${r.receiver.id}`;
    const since = new Date(Date.now() - 60_000);
    const events = await approve(brand.id, 3);
    // After a third failure the next attempt waits 18 s: none is in flight when it is paused.
    await waitFor(
      async () => {
        const ds = await deliveriesOf(r.receiver.id);
        return ds.length === 3 && ds.every((d) => d.attempt_count >= 3);
      },
      { timeoutMs: 20_000, what: 'three deliveries failing three times' },
    );

    // Failing: flagged in the list, and one notice on every brand page.
    const list = await http.get(`/brands/${brand.id}/receivers`);
    expect(list.body).toContain('<tr class="failing">');
    expect(list.body).toMatch(/Failing<\/strong> since/);
    const keys = await http.get(`/brands/${brand.id}/keys`);
    expect(keys.body.match(/class="notice warn"/g)).toHaveLength(1);
    expect(keys.body).toContain(`is failing since`);

    // An owner disables it (the pending deliveries become failed); recovery is refused then.
    const page = await http.get(base);
    const csrf = csrfOf(page.body);
    expect((await http.post(`${base}/disable`, { _csrf: csrf })).status).toBe(303);
    const disabledForm = await http.get(`${base}/recovery`);
    expect(disabledForm.body).toContain('enable it first');
    const refused = await http.post(`${base}/recover`, {
      _csrf: csrf,
      since: since.toISOString(),
      request_id: '0b1d8a4e-3f1c-4c55-9d7e-2f3a4b5c6d70',
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/disabled/i);

    down = false;
    expect((await http.post(`${base}/enable`, { _csrf: csrf })).status).toBe(303);
    const sinceValue = since.toISOString().slice(0, 16);
    const preview = await http.get(`${base}/recover?since=${sinceValue}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toContain(
      `Since ${since.toISOString().slice(0, 16).replace('T', ' ')} UTC: 3 deliveries failed and 0 deliveries waiting for a retry.`,
    );
    expect(preview.body).toContain(
      'at most 14 days back and sends at most 10,000 deliveries per request',
    );
    const requestId = /name="request_id" value="([^"]+)"/.exec(preview.body)?.[1];
    const form = {
      _csrf: csrf,
      since: /name="since" value="([^"]+)"/.exec(preview.body)![1]!,
      request_id: requestId!,
    };
    const first = await http.post(`${base}/recover`, form);
    const second = await http.post(`${base}/recover`, form);
    expect(first.status).toBe(303);
    expect(new URL(first.location!, cs.url).searchParams.get('failed')).toBe('3');
    expect(new URL(second.location!, cs.url).searchParams.get('replayed')).toBe('1');
    expect((await http.get(second.location!)).body).toContain('nothing was sent twice');

    // Each event arrives once more, with the same event id; nothing for the other receiver.
    await r.server.waitFor(
      () => events.every((id) => verifiedBy(r).some((d) => d.event?.id === id)),
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(verifiedBy(r).filter((d) => d.event && events.includes(d.event.id))).toHaveLength(3);
    expect(other.server.received).toHaveLength(0);

    const bad = await http.get(`${base}/recover?since=yesterday`);
    expect(bad.status).toBe(400);
    const tooOld = await http.get(`${base}/recover?since=2020-01-01T00:00`);
    expect(tooOld.status).toBe(400);
  });
});

describe('the mail when the service disables a receiver', () => {
  it('reaches every owner once, nobody else, and is not sent when an owner disables one', async () => {
    const { brand, owner } = await brandWithOwner();
    const coOwner = `co-owner-${randomHex(4)}@brand.test`;
    const adminEmail = `admin-${randomHex(4)}@brand.test`;
    const memberEmail = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email: coOwner, role: 'owner' });
    await cs.stack.admin.addMember({ brandId: brand.id, email: adminEmail, role: 'admin' });
    await cs.stack.admin.addMember({ brandId: brand.id, email: memberEmail, role: 'member' });
    const gone = await receiverFor(brand.id, { respondWith: () => 410, label: 'Gone hook' });
    const paused = await receiverFor(brand.id, { label: 'Paused hook' });
    const started = Date.now();

    const http = await signIn(owner.email);
    const pausedPage = await http.get(`/brands/${brand.id}/receivers/${paused.receiver.id}`);
    await http.post(`/brands/${brand.id}/receivers/${paused.receiver.id}/disable`, {
      _csrf: csrfOf(pausedPage.body),
    });
    await approve(brand.id);

    const mailsAbout = (label: string) =>
      readdirSync(cs.mailDir)
        .filter((f) => f.endsWith('.txt'))
        .map((f) => readFileSync(path.join(cs.mailDir, f), 'utf8'))
        .filter((m) => m.includes(`disabled the receiver “${label}”`));
    await waitFor(() => mailsAbout('Gone hook').length >= 2, {
      timeoutMs: 20_000,
      what: 'the disable mail to both owners',
    });
    // Longer than a lease, so a notice mailed but not acknowledged would come back.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const mails = mailsAbout('Gone hook');
    const to = mails.map((m) => /^To: (.*)$/m.exec(m)?.[1]).sort();
    expect(to).toEqual([owner.email, coOwner].sort());
    expect(mails[0]).toContain(`${cs.url}/brands/${brand.id}/receivers/${gone.receiver.id}`);
    expect(mails[0]).toMatch(/Why: .*410/);
    expect(mailsAbout('Paused hook')).toHaveLength(0);
    expect(Date.now() - started).toBeLessThan(40_000);
  });
});

describe('the mails when a receiver starts failing and when it recovers', () => {
  it('reach every owner once each, not per attempt', async () => {
    const { brand, owner } = await brandWithOwner();
    const coOwner = `co-owner-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email: coOwner, role: 'owner' });
    let down = true;
    const r = await receiverFor(brand.id, {
      respondWith: () => (down ? 503 : undefined),
      label: 'Flaky hook',
    });
    const mailsAbout = (words: RegExp) =>
      readdirSync(cs.mailDir)
        .filter((f) => f.endsWith('.txt'))
        .map((f) => readFileSync(path.join(cs.mailDir, f), 'utf8'))
        .filter((m) => words.test(m));
    const failing = /The receiver “Flaky hook”.* is failing: \d+ failed attempts in a row/;
    const recovered = /The receiver “Flaky hook”.* answered 2xx again after/;

    const events = await approveSubmissions(cs, brand.id, 6);
    await waitFor(() => mailsAbout(failing).length >= 2, {
      timeoutMs: 30_000,
      what: 'the failing mail to both owners',
    });
    const failingMails = mailsAbout(failing);
    expect(failingMails.map((m) => /^To: (.*)$/m.exec(m)?.[1]).sort()).toEqual(
      [owner.email, coOwner].sort(),
    );
    expect(failingMails[0]).toMatch(/Last error: 503 from the receiver/);
    expect(failingMails[0]).toContain(`${cs.url}/brands/${brand.id}/receivers/${r.receiver.id}`);

    down = false;
    await r.server.waitFor(
      () => events.every((id) => verifiedBy(r).some((d) => d.event?.id === id)),
      30_000,
    );
    await waitFor(() => mailsAbout(recovered).length >= 2, {
      timeoutMs: 20_000,
      what: 'the recovered mail to both owners',
    });
    // Longer than a lease: nothing more comes, however many attempts failed.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(mailsAbout(failing)).toHaveLength(2);
    expect(mailsAbout(recovered)).toHaveLength(2);
  });
});
