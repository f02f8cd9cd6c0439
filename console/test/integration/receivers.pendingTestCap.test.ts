// At most ten pending Tests per receiver, over HTTP against real services and a real HTTPS
// receiver. Each Test stores an event, a delivery and an activity entry, and nothing bounded
// them: a script with an owner's session could post the Test form in a loop (a hostile review of
// one brand against the shared service, 2026-12-01). With ten Tests waiting (the receiver holds
// each for 6 s), the eleventh is answered 422 on the Testing tab with the sentence saying so, and
// nothing is stored for it.
import { randomHex } from '@brand/testkit';
import { csrfOf, textOf } from '../browserlessClient';
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

it('refuses the eleventh Test while ten wait, saying so on the Testing tab', async () => {
  const { brand, owner } = await brandWithOwner(rs.cs);
  const label = `Orders ${randomHex(2)}`;
  const r = await rs.receiverFor(brand.id, {
    label,
    // Tests are answered after 6 s: four in flight at a time, the rest queued behind them
    respondWith: (_n, d) =>
      d.verdict.ok && d.verdict.event.test ? { status: 204, delayMs: 6_000 } : undefined,
  });
  const http = await signInHttp(rs.cs, owner.email);
  const base = `/brands/${brand.id}/receivers/${r.receiver.id}`;
  const csrf = csrfOf((await http.get(`${base}/testing`)).body);
  const post = () => http.post(`${base}/test`, { _csrf: csrf, event_type: 'payout.paid' });

  const queued: string[] = [];
  for (let i = 0; i < 10; i++) {
    const answer = await post();
    expect(answer.status).toBe(303);
    queued.push(/\/deliveries\/(dlv_[A-Za-z0-9]+)$/.exec(answer.location ?? '')![1]!);
  }

  const eleventh = await post();
  expect(eleventh.status).toBe(422);
  expect(textOf(eleventh.body)).toMatch(
    new RegExp(
      `Receiver "${label}" already has 10 Tests waiting \\(the oldest ${queued[0]}, queued at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\); at most 10 wait at once`,
    ),
  );
  const { rows } = await rs.cs.stack.db.pool.query<{ id: string }>(
    `select id from webhooks.deliveries where receiver_id = $1 and test`,
    [r.receiver.id],
  );
  expect(rows.map((d) => d.id).sort()).toEqual([...queued].sort());
});
