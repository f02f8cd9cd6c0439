// Every form the console has, as a furnished brand's owner's crawl finds them (consoleCrawl: from
// the front page, following links, no list of routes from this code), posted as the owner's
// browser would be tricked into posting it: without the session's form token, with another
// session's, from another origin, and with no Origin or Referer at all; and posted by a browser
// that is not signed in. Each is refused and the brand's activity logs, keys and receiver are as
// they were. forms.newestRefuseForgery names the newest forms one by one; this sweep takes every
// form, including those added after it was written.
import { ConsoleHttp, csrfOf } from '../browserlessClient';
import {
  brandWithOwner,
  signInHttp,
  startReceiverStack,
  type ReceiverStack,
} from '../consoleActors';
import { activityCount, crawl, furnishedBrand, type Form } from '../consoleCrawl';

let rs: ReceiverStack;

beforeAll(async () => {
  rs = await startReceiverStack();
}, 120_000);
afterAll(() => rs?.close());

it('refuses every form posted forged, or by a browser not signed in, and changes nothing', async () => {
  const victim = await furnishedBrand(rs);
  const found = await crawl(victim.http, victim.brand.id);
  expect(found.forms.size).toBeGreaterThan(15);
  const other = await brandWithOwner(rs.cs);
  const otherHttp = await signInHttp(rs.cs, other.owner.email);
  const theirToken = csrfOf((await otherHttp.get(`/brands/${other.brand.id}/keys`)).body);
  const signedOut = new ConsoleHttp(rs.cs.url);

  const keysBefore = await rs.cs.stack.admin.listKeys(victim.brand.id);
  const activityBefore = await activityCount(rs.cs, victim.brand.id);
  const ways: [string, (action: string, form: Form) => ReturnType<ConsoleHttp['post']>][] = [
    ['without the form token', (a, { _csrf, ...form }) => victim.http.post(a, form)],
    ["with another session's token", (a, f) => victim.http.post(a, { ...f, _csrf: theirToken })],
    ['from another origin', (a, f) => victim.http.post(a, f, { origin: 'https://evil.example' })],
    ['with no Origin', (a, f) => victim.http.post(a, f, { origin: null })],
    ['by a browser not signed in', (a, f) => signedOut.post(a, f)],
  ];
  const taken: string[] = [];
  for (const [action, form] of found.forms) {
    for (const [way, post] of ways) {
      const res = await post(action, form);
      const toSignIn = res.status === 303 && /^\/sign-in(\?|$)/.test(res.location ?? '');
      if (res.status < 400 && !toSignIn)
        taken.push(`${action} ${way}: ${res.status} ${res.location ?? ''}`);
    }
  }
  expect(taken).toEqual([]);
  expect(await activityCount(rs.cs, victim.brand.id)).toBe(activityBefore);
  expect(await rs.cs.stack.admin.listKeys(victim.brand.id)).toEqual(keysBefore);
  // and the owner's own session was not ended by any of it
  const receiverPage = await victim.http.get(
    `/brands/${victim.brand.id}/receivers/${victim.receiver.receiver.id}`,
  );
  expect(receiverPage.status).toBe(200);
}, 300_000);
