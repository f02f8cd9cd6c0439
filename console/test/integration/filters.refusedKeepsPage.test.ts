// The outside probe of 2026-11-30: a mistyped filter on Events or Activity answered a bare
// error page (no side bar, no form, the typed text gone). A refused filter is still a 400
// (X-Console-Error says why) but the page comes back whole: the side bar, the form with what
// was typed, and the refusal above it, announced (role=alert) and tied to the form
// (aria-describedby). Activity's export links are not offered for a refused filter. The
// delivery logs (the brand's Deliveries page, a receiver's Deliveries tab) said their refusal
// but dropped the refused value from the form and listed the newest deliveries: they now keep
// the page the same way, list nothing, and so does a filter the service refuses (a cursor).
import type { Answer } from '../browserlessClient';
import {
  brandWithOwner,
  signInHttp,
  startReceiverStack,
  type ReceiverStack,
} from '../consoleActors';
import type { ConsoleStack } from '../consoleStack';

let rs: ReceiverStack;
let cs: ConsoleStack;

beforeAll(async () => {
  rs = await startReceiverStack();
  cs = rs.cs;
}, 120_000);
afterAll(() => rs?.close());

/** The page of a refused filter: 400, the side bar, the form as typed, the refusal tied to it. */
function expectRefusedPage(res: Answer, form: string, typed: string, words: string) {
  expect(res.status).toBe(400);
  expect(res.headers.get('x-console-error')).toBe('validation_failed');
  expect(res.body).toContain('aria-label="Sections"');
  expect(res.body).toContain(`aria-label="${form}"`);
  expect(res.body).toContain(`value="${typed}"`);
  const alert = /<div id="([a-z-]+)" class="notice error" role="alert">([^<]*)</.exec(res.body);
  expect(alert?.[2]).toContain(words);
  expect(res.body).toMatch(new RegExp(`<form[^>]*aria-describedby="${alert?.[1]}"`));
}

it.each([
  // in the words of the form's labels, as the delivery logs say theirs: no field path
  [
    'activity?actor=owner',
    'Filter activity',
    'owner',
    'Enter &quot;Who&quot; as an email address, a member id (mem_...) or &quot;operator&quot;.',
  ],
  [
    'activity?since=yesterday',
    'Filter activity',
    'yesterday',
    'Enter &quot;From&quot; as a UTC time, for example 2026-11-20 14:00, or a day.',
  ],
  ['events?since=yesterday', 'Filter the events', 'yesterday', 'since: enter &quot;From&quot;'],
  [
    'events?find=abc',
    'Filter the events',
    'abc',
    'find: enter an event id (evt_...) or a record id',
  ],
])(
  '/%s: 400, the whole page with the form, the typed value and the refusal',
  async (path, form, typed, words) => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInHttp(cs, owner.email);
    const res = await http.get(`/brands/${brand.id}/${path}`);
    expectRefusedPage(res, form, typed, words);
    expect(res.body).not.toContain('/activity/export');
    if (path.startsWith('activity')) expect(res.body).not.toMatch(/role="alert">[a-z_]+: /);
  },
);

it.each([
  ['deliveries?since=yesterday&state=failed', 'yesterday', 'Enter &quot;From&quot; as a UTC time'],
  ['deliveries?find=abc', 'abc', 'Find takes an event id (evt_...) or a record id'],
  // refused by the service, not the console: the same page, what was typed kept
  ['deliveries?find=evt_1&cursor=bm90LWEtY3Vyc29y', 'evt_1', 'not a cursor of this list'],
])(
  '/%s, the brand’s and a receiver’s: 400, the form as typed, the refusal, no deliveries',
  async (path, typed, words) => {
    const { brand, owner } = await brandWithOwner(cs);
    const r = await rs.receiverFor(brand.id);
    const http = await signInHttp(cs, owner.email);
    for (const page of [path, `receivers/${r.receiver.id}/${path}`]) {
      const res = await http.get(`/brands/${brand.id}/${page}`);
      expectRefusedPage(res, 'Filter the log', typed, words);
      expect(res.body).toContain('Correct the filter above to see deliveries.');
    }
  },
);
