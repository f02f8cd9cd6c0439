// What an owner's open pages can still do after the owner is demoted, then removed: the second
// owner of a furnished brand crawls every page and form they have (consoleCrawl: from the front
// page, following links, no list of routes from this code). The first owner then makes them a
// plain member: every form they had and a member is not shown, posted from their pages as they
// were, is refused. Then the first owner removes them: every page they had is refused to them and
// every form they had, posted as it was, is refused too. The brand's activity logs gain only the
// demotion and the removal, and its keys and receiver are as they were.
import { Role } from '@brand/proto/access/v1';
import { randomHex } from '@brand/testkit';
import { csrfOf } from '../browserlessClient';
import { signInHttp, startReceiverStack, type ReceiverStack } from '../consoleActors';
import { activityCount, crawl, ENDS_A_SESSION, furnishedBrand } from '../consoleCrawl';

let rs: ReceiverStack;

beforeAll(async () => {
  rs = await startReceiverStack();
}, 120_000);
afterAll(() => rs?.close());

it("refuses a demoted owner's open owner forms, then a removed one's every page and form", async () => {
  const brand = await furnishedBrand(rs);
  const id = brand.brand.id;
  const second = await rs.cs.stack.admin.addMember({
    brandId: id,
    email: `second-${randomHex(4)}@brand.test`,
    role: Role.ROLE_OWNER,
  });
  const http = await signInHttp(rs.cs, second.email);
  const asOwner = await crawl(http, id);
  expect(asOwner.forms.size).toBeGreaterThan(15);
  const forms = [...asOwner.forms].filter(([action]) => !ENDS_A_SESSION.test(action));
  const keysBefore = await rs.cs.stack.admin.listKeys(id);

  const membersPage = (await brand.http.get(`/brands/${id}/members`)).body;
  const csrf = csrfOf(membersPage);
  const demoted = await brand.http.post(`/brands/${id}/members/${second.id}/role`, {
    _csrf: csrf,
    role: 'member',
  });
  expect(demoted.status).toBe(303);
  const afterDemotion = await activityCount(rs.cs, id);
  const asMember = await crawl(http, id);
  const ownersOnly = forms.filter(([action]) => !asMember.forms.has(action));
  expect(ownersOnly.length).toBeGreaterThan(10);
  const taken: string[] = [];
  for (const [action, form] of ownersOnly) {
    const res = await http.post(action, form);
    if (res.status < 400)
      taken.push(`demoted: POST ${action}: ${res.status} ${res.location ?? ''}`);
  }
  expect(taken).toEqual([]);
  expect(await activityCount(rs.cs, id)).toBe(afterDemotion);

  const removed = await brand.http.post(`/brands/${id}/members/${second.id}/remove`, {
    _csrf: csrf,
  });
  expect(removed.status).toBe(303);
  const afterRemoval = await activityCount(rs.cs, id);
  const brandPages = asOwner.pages.filter((p) => p.startsWith(`/brands/${id}`));
  for (const page of brandPages) {
    const res = await http.get(page);
    if (res.status === 200) taken.push(`removed: GET ${page}: 200`);
  }
  for (const [action, form] of forms) {
    const res = await http.post(action, form);
    const toSignIn = res.status === 303 && /^\/sign-in(\?|$)/.test(res.location ?? '');
    if (res.status < 400 && !toSignIn && action.startsWith(`/brands/${id}`))
      taken.push(`removed: POST ${action}: ${res.status} ${res.location ?? ''}`);
  }
  expect(taken).toEqual([]);
  expect(await activityCount(rs.cs, id)).toBe(afterRemoval);
  expect(await rs.cs.stack.admin.listKeys(id)).toEqual(keysBefore);
  expect(
    (await brand.http.get(`/brands/${id}/receivers/${brand.receiver.receiver.id}`)).status,
  ).toBe(200);
}, 300_000);
