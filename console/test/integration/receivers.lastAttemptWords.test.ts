// A receiver's status line and its "Last attempt" row, over HTTP against real services and a real
// HTTPS receiver: a Test refused (500) after business events were taken is the receiver's last
// attempt (last_status) but never counts toward its health (failing_since stays empty). The page
// said "OK: the last attempt succeeded" beside "HTTP 500" (docs/console/receiver.png, 2026-11-30);
// now neither line claims what the other denies, and the 500 is named as not counted.
import { randomHex, waitFor } from '@brand/testkit';
import { csrfOf, textOf } from '../browserlessClient';
import {
  approveSubmissions,
  brandWithOwner,
  signInHttp,
  startReceiverStack,
  type ReceiverStack,
} from '../consoleActors';

let rs: ReceiverStack;

beforeAll(async () => {
  rs = await startReceiverStack();
}, 120_000);
afterAll(() => rs?.close());

it('does not say the last attempt succeeded when it was a Test refused 500, and names it as not counted', async () => {
  const { brand, owner } = await brandWithOwner(rs.cs);
  // business events are taken; a Test is refused (500)
  const r = await rs.receiverFor(brand.id, {
    label: `Orders ${randomHex(2)}`,
    respondWith: (_n, d) => (d.verdict.ok && d.verdict.event.test ? 500 : undefined),
  });
  const [id] = await approveSubmissions(rs.cs, brand.id, 1);
  const receiverOf = async () =>
    (await rs.admin.call('getReceiver', { receiver_id: r.receiver.id })).receiver!;
  await waitFor(
    async () => ((s) => s >= 200 && s < 300)((await receiverOf()).last_status) || undefined,
    {
      timeoutMs: 20_000,
      what: `the event ${id} taken`,
    },
  );

  const http = await signInHttp(rs.cs, owner.email);
  const base = `/brands/${brand.id}/receivers/${r.receiver.id}`;
  const ok = textOf((await http.get(base)).body);
  expect(ok).toContain('OK: the last attempt succeeded');
  expect(ok).toMatch(/HTTP 2\d\d/);

  const testing = await http.get(`${base}/testing`);
  const tested = await http.post(`${base}/test`, {
    _csrf: csrfOf(testing.body),
    event_type: 'payout.paid',
  });
  expect(tested.status).toBe(303);
  await waitFor(async () => (await receiverOf()).last_status === 500 || undefined, {
    timeoutMs: 20_000,
    what: 'the Test refused',
  });
  expect((await receiverOf()).failing_since).toBe('');

  const page = textOf((await http.get(base)).body);
  expect(page).toContain('HTTP 500');
  expect(page).not.toContain('the last attempt succeeded');
  expect(page).toContain('OK: nothing is failing');
  expect(page).toMatch(/Last attempt [^|]*HTTP 500, not counted \(a Test/);
});
