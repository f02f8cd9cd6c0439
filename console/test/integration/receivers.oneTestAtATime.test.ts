// One pending Test per receiver, over HTTP against real services and a real HTTPS receiver. Each
// Test stores an event, a delivery and an activity entry, and nothing bounded them: a script with
// an owner's session could post the Test form in a loop (a hostile review of one brand against the
// shared service, 2026-12-01). A second Test while the first is still pending (its one attempt
// held for 3 s by the receiver) is now answered 422 on the Testing tab with the sentence naming
// the pending Test and when it was queued; once that Test has its outcome, Test works again.
import { randomHex, waitFor } from '@brand/testkit';
import { csrfOf } from '../browserlessClient';
import {
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

/** The page's text without tags, spaces collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();

it('refuses a second Test while the first is pending, saying so on the Testing tab; accepts one once it ends', async () => {
  const { brand, owner } = await brandWithOwner(rs.cs);
  const label = `Orders ${randomHex(2)}`;
  const r = await rs.receiverFor(brand.id, {
    label,
    // a Test is answered after 3 s: it is pending (in flight) meanwhile
    respondWith: (_n, d) =>
      d.verdict.ok && d.verdict.event.test ? { status: 204, delayMs: 3_000 } : undefined,
  });
  const http = await signInHttp(rs.cs, owner.email);
  const base = `/brands/${brand.id}/receivers/${r.receiver.id}`;
  const post = async () =>
    http.post(`${base}/test`, {
      _csrf: csrfOf((await http.get(`${base}/testing`)).body),
      event_type: 'payout.paid',
    });

  const first = await post();
  expect(first.status).toBe(303);
  const firstId = /\/deliveries\/(dlv_[A-Za-z0-9]+)$/.exec(first.location ?? '')?.[1];
  expect(firstId).toBeDefined();

  const second = await post();
  expect(second.status).toBe(422);
  expect(textOf(second.body)).toMatch(
    new RegExp(
      `A Test of "${label}" is already queued \\(${firstId}, queued at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\\. One Test at a time`,
    ),
  );
  const { rows } = await rs.cs.stack.db.pool.query(
    `select id from webhooks.deliveries where receiver_id = $1 and test`,
    [r.receiver.id],
  );
  expect(rows).toEqual([{ id: firstId }]);

  await waitFor(
    async () =>
      (await rs.admin.call('getDelivery', { delivery_id: firstId! })).delivery?.completed_at ||
      undefined,
    { timeoutMs: 20_000, what: 'the first Test answered' },
  );
  expect((await post()).status).toBe(303);
});
