// The outside probe of 2026-11-30: a mistyped filter on Events or Activity answered a bare
// error page (no side bar, no form, the typed text gone). A refused filter is still a 400
// (X-Console-Error says why) but the page comes back whole: the side bar, the form with what
// was typed, and the refusal above it, announced (role=alert) and tied to the form
// (aria-describedby). Activity's export links are not offered for a refused filter.
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

it.each([
  ['activity?actor=owner', 'Filter activity', 'owner', 'actor: must be a member id'],
  ['activity?since=yesterday', 'Filter activity', 'yesterday', 'since: '],
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
    expect(res.status).toBe(400);
    expect(res.headers.get('x-console-error')).toBe('validation_failed');
    expect(res.body).toContain('aria-label="Sections"');
    expect(res.body).toContain(`aria-label="${form}"`);
    expect(res.body).toContain(`value="${typed}"`);
    const alert = /<div id="([a-z-]+)" class="notice error" role="alert">([^<]*)</.exec(res.body);
    expect(alert?.[2]).toContain(words);
    expect(res.body).toMatch(new RegExp(`<form[^>]*aria-describedby="${alert?.[1]}"`));
    expect(res.body).not.toContain('/activity/export');
  },
);
