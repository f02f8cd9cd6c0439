// Every page and form of one brand, as its own owner's crawl finds them (consoleCrawl: from the
// front page, following links, no list of routes from this code), read and posted by the owner of
// another brand with their own session and CSRF token: each read is refused, each post is refused,
// and the first brand's activity logs, keys, receiver and signed-in people are as they were. The
// hostile probes of issues 59 and 63 found their ways in one route at a time; this sweep takes
// every route the first brand's owner has, including those added after it was written.
import { csrfOf } from '../browserlessClient';
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

it("refuses every page and form of a brand to another brand's owner, and changes nothing there", async () => {
  const victim = await furnishedBrand(rs);
  const found = await crawl(victim.http, victim.brand.id);
  const own = `/brands/${victim.brand.id}`;
  const pages = found.pages.filter((p) => p.startsWith(own));
  const forms = [...found.forms].filter(
    ([action, form]) =>
      action.startsWith(own) || Object.values(form).flat().includes(victim.brand.id),
  );
  // the crawl found the brand's areas and their forms
  expect(pages.length).toBeGreaterThan(15);
  expect(forms.length).toBeGreaterThan(15);
  // the owner's own session, which no one else may end by any path
  const [victimSession] = [
    ...(await victim.http.get('/sessions')).body.matchAll(/\/sessions\/(ses_[A-Za-z0-9]+)\/end/g),
  ].map((m) => m[1]!);
  expect(victimSession).toBeDefined();

  const keysBefore = await rs.cs.stack.admin.listKeys(victim.brand.id);
  const activityBefore = await activityCount(rs.cs, victim.brand.id);

  const attacker = await brandWithOwner(rs.cs);
  const http = await signInHttp(rs.cs, attacker.owner.email);
  const csrf = csrfOf((await http.get(`/brands/${attacker.brand.id}/keys`)).body);
  const taken: string[] = [];
  // each page and form as the victim's owner has them, and again under the attacker's own brand
  // with the victim's ids in the path (the brand checked, the object not)
  const mine = `/brands/${attacker.brand.id}`;
  const holdsAnId = (path: string) => /\/[a-z]+_[A-Za-z0-9]+(\/|$)/.test(path.slice(own.length));
  const asMine = (path: string) => (holdsAnId(path) ? [mine + path.slice(own.length)] : []);
  for (const page of pages.flatMap((p) => [p, ...asMine(p)])) {
    const res = await http.get(page);
    if (res.status < 300 || res.body.includes(victim.receiver.receiver.id))
      taken.push(`GET ${page}: ${res.status}`);
  }
  const posts: [string, Form][] = [
    ...forms.flatMap(([action, form]): [string, Form][] => [
      [action, form],
      ...asMine(action).map((a): [string, Form] => [a, form]),
    ]),
    ...[`/sessions/${victimSession}/end`, `${own}/members/sessions/${victimSession}/end`].map(
      (a): [string, Form] => [a, {}],
    ),
    [`${mine}/members/sessions/${victimSession}/end`, {}],
  ];
  for (const [action, form] of posts) {
    const res = await http.post(action, { ...form, _csrf: csrf });
    if (res.status < 400) taken.push(`POST ${action}: ${res.status} ${res.location ?? ''}`);
  }
  expect(taken).toEqual([]);

  // nothing of the brand changed: no activity, its keys as they were, its people still signed in
  expect(await activityCount(rs.cs, victim.brand.id)).toBe(activityBefore);
  expect(await rs.cs.stack.admin.listKeys(victim.brand.id)).toEqual(keysBefore);
  expect((await victim.http.get('/sessions')).body).toContain(victimSession);
  expect((await victim.http.get(`${own}/receivers/${victim.receiver.receiver.id}`)).status).toBe(
    200,
  );
}, 300_000);
