// What a role may not do, swept over every form the console has: the owner's crawl of a furnished
// brand finds every form (consoleCrawl: from the front page, following links, no list of routes
// from this code); an admin and a plain member of the same brand crawl it too, and every form the
// owner is shown and they are not is posted by them, with their own session and CSRF token. Each
// is refused, and the brand's activity logs, keys and receiver are as they were: a form a role is
// not shown is a change the role may not make, whoever finds its address.
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

it.each([
  ['an admin', Role.ROLE_ADMIN],
  ['a member', Role.ROLE_MEMBER],
])(
  'refuses %s every form the owner is shown and they are not',
  async (_, role) => {
    const brand = await furnishedBrand(rs);
    const owners = await crawl(brand.http, brand.brand.id);
    const ownersForms = owners.forms;
    const person = await rs.cs.stack.admin.addMember({
      brandId: brand.brand.id,
      email: `role-${randomHex(4)}@brand.test`,
      role,
    });
    const http = await signInHttp(rs.cs, person.email);
    const theirs = await crawl(http, brand.brand.id);
    const hidden = [...ownersForms].filter(
      ([action]) => !theirs.forms.has(action) && !ENDS_A_SESSION.test(action),
    );
    // the role sees the brand, and there is something it is not shown
    expect(theirs.pages.length).toBeGreaterThan(5);
    expect(hidden.length).toBeGreaterThan(3);

    const csrf = csrfOf((await http.get(`/brands/${brand.brand.id}`)).body);
    const keysBefore = await rs.cs.stack.admin.listKeys(brand.brand.id);
    const activityBefore = await activityCount(rs.cs, brand.brand.id);
    const taken: string[] = [];
    for (const [action, form] of hidden) {
      const res = await http.post(action, { ...form, _csrf: csrf });
      if (res.status < 400) taken.push(`POST ${action}: ${res.status} ${res.location ?? ''}`);
    }
    // and a page only the owner is led to, opened by its address, offers none of those forms
    const hiddenActions = new Set(hidden.map(([action]) => action));
    for (const page of owners.pages.filter((p) => !theirs.pages.includes(p))) {
      const res = await http.get(page);
      const offered = [...res.body.matchAll(/action="([^"]+)"/g)]
        .map((m) => m[1]!.replace(/&amp;/g, '&'))
        .filter((action) => hiddenActions.has(action));
      if (res.status === 200 && offered.length > 0)
        taken.push(`GET ${page} offers ${offered.join(', ')}`);
    }
    expect(taken).toEqual([]);
    expect(await activityCount(rs.cs, brand.brand.id)).toBe(activityBefore);
    expect(await rs.cs.stack.admin.listKeys(brand.brand.id)).toEqual(keysBefore);
    const receiverPage = await brand.http.get(
      `/brands/${brand.brand.id}/receivers/${brand.receiver.receiver.id}`,
    );
    expect(receiverPage.status).toBe(200);
  },
  300_000,
);
