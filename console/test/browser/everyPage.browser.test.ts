// Every page of a furnished brand's console in a real browser (Debian's Chromium via
// playwright-core), found as an outside checker finds them: a crawl from the front page,
// following links (consoleCrawl; no list of routes from this code), as the owner and as a plain
// member. Each page is opened signed in and checked as the area tests check theirs: the header
// names who is signed in and holds the one Sign out button (a person's own pages and the
// refusals too), axe-core finds no serious or critical violation, and nothing scrolls sideways
// at a laptop's, a small laptop's, a tablet's or a phone's width; its screenshot is kept
// (every-page-owner-*.png, every-page-member-*.png). The member also opens the owner's pages they
// are not led to, by their addresses: each is refused (403 or 404) and looked at the same way. The
// area tests look at the pages their stories pass through; this one looks at every page,
// including those added after it.
import type { Browser } from 'playwright-core';
import { Role } from '@brand/proto/access/v1';
import { randomHex } from '@brand/testkit';
import { signInHttp, startReceiverStack, type ReceiverStack } from '../consoleActors';
import { crawl, furnishedBrand } from '../consoleCrawl';
import { expectAccessible, launchChromium, screenshot, signIn } from './browserKit';

let rs: ReceiverStack;
let browser: Browser;

beforeAll(async () => {
  rs = await startReceiverStack();
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await rs?.close();
});

/** A page's path as a file name, each id as its kind: /brands/br_x/keys/key_y/roll → brands-br-keys-key-roll. */
const shotName = (path: string): string =>
  `${path
    .split('?')[0]!
    .split('/')
    .filter((p) => p !== '')
    .map((p) => /^([a-z]+)_[A-Za-z0-9]+$/.exec(p)?.[1] ?? p)
    .join('-')}`;

it.each([
  ['an owner', undefined, 20],
  ['a plain member', Role.ROLE_MEMBER, 10],
])(
  'opens every page %s can reach, each accessible and fitting every width',
  async (_, role, least) => {
    const furnished = await furnishedBrand(rs);
    const person =
      role === undefined
        ? furnished.owner
        : await rs.cs.stack.admin.addMember({
            brandId: furnished.brand.id,
            email: `member-${randomHex(4)}@brand.test`,
            role,
          });
    const http = role === undefined ? furnished.http : await signInHttp(rs.cs, person.email);
    const { pages } = await crawl(http, furnished.brand.id);
    expect(pages.length).toBeGreaterThan(least);
    // a member also opens, by their addresses, the owner's pages they are not led to: each
    // answers 403 or 404, and is looked at like any other
    const ownersOnly =
      role === undefined
        ? []
        : (await crawl(furnished.http, furnished.brand.id)).pages.filter((p) => !pages.includes(p));
    if (role !== undefined) expect(ownersOnly.length).toBeGreaterThan(3);
    const page = await signIn(browser, rs.cs, person.email);
    const failures: string[] = [];
    for (const path of [...pages, ...ownersOnly]) {
      try {
        const response = await page.goto(`${rs.cs.url}${path}`);
        const status = response?.status();
        const expected = pages.includes(path) ? [200] : [403, 404];
        expect({ path, status: expected.includes(status!) }).toEqual({ path, status: true });
        // every page of theirs and every refusal of a brand's page (403 or 404 alike) says, in
        // one header, who is signed in and offers the one way out
        const header = page.locator('header.top');
        await expect(header.textContent()).resolves.toContain(person.email);
        await expect(
          header.getByRole('button', { name: 'Sign out', exact: true }).count(),
        ).resolves.toBe(1);
        await expect(
          page.getByRole('button', { name: 'Sign out', exact: true }).count(),
        ).resolves.toBe(1);
        await expectAccessible(page);
        await screenshot(
          page,
          `every-page-${role === undefined ? 'owner' : 'member'}-${shotName(path)}`,
        );
      } catch (err) {
        failures.push(
          `${path}: ${err instanceof Error ? err.message.split('\n').slice(0, 12).join(' ') : String(err)}`,
        );
      }
    }
    expect(failures).toEqual([]);
  },
  600_000,
);
