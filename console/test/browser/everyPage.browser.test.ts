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
// including those added after it. The pages no link leads to, each secret's one showing after
// the form that makes it (a key's, an audit stream's, a SCIM token's), are opened by sending those
// forms and looked at the same way, and so are the 404s a signed-in person meets.
import type { Browser, Page } from 'playwright-core';
import { Role } from '@brand/proto/access/v1';
import { randomHex } from '@brand/testkit';
import {
  brandWithOwner,
  signInHttp,
  startReceiverStack,
  type ReceiverStack,
} from '../consoleActors';
import { crawl, furnishedBrand } from '../consoleCrawl';
import {
  expectAccessible,
  expectSignedInHeader,
  launchChromium,
  screenshot,
  signIn,
} from './browserKit';

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

/**
 * The checks every page gets: the header says, once, who is signed in and holds the one way out
 * (a brand's page, a person's own, a refusal alike), axe-core finds no serious or critical
 * violation, nothing scrolls sideways at any width, and its screenshot is kept as `name`.
 */
async function lookAt(page: Page, email: string, name: string): Promise<void> {
  await expectSignedInHeader(page, email);
  await expectAccessible(page);
  await screenshot(page, name);
}

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
        await lookAt(
          page,
          person.email,
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

/**
 * Sends the form posting to `action` on the page as a person would, each of `fields` set first
 * (a radio group by its value), and waits for the page it leads to.
 */
async function sendForm(page: Page, action: string, fields: Record<string, string>): Promise<void> {
  const from = new URL(page.url()).pathname;
  await Promise.all([
    page.waitForURL((url) => url.pathname !== from),
    page.evaluate(
      ({ action, fields }) => {
        const form = document.querySelector<HTMLFormElement>(
          `form[method="post"][action="${action}"]`,
        );
        if (!form) throw new Error(`no form posts to ${action}`);
        for (const [name, value] of Object.entries(fields)) {
          const field = form.elements.namedItem(name) as HTMLInputElement | RadioNodeList | null;
          if (!field) throw new Error(`the form posting to ${action} has no field ${name}`);
          field.value = value;
        }
        form.requestSubmit();
      },
      { action, fields },
    ),
  ]);
}

// The pages a crawl cannot reach: each secret's one showing, after the form that makes it. They
// get every page's checks, as an owner sees them the moment the secret is made.
it('shows each new secret once on a page as accessible and fitting as every other', async () => {
  const { brand, owner } = await brandWithOwner(rs.cs);
  const page = await signIn(browser, rs.cs, owner.email);
  // each form's page, where it posts, what it is sent, and the secret its answer shows
  const made: [string, string, Record<string, string>, RegExp][] = [
    ['keys', 'keys', { name: 'Sweep key' }, /bk_live_[A-Za-z0-9]{32,}/],
    [
      'audit-streams',
      'audit-streams',
      { kind: 'https', label: 'SIEM', url: 'https://127.0.0.1:1026/audit' },
      /whsec_[A-Za-z0-9]{20,}/,
    ],
    ['provisioning', 'provisioning/tokens', { name: 'Directory sync' }, /scim_[A-Za-z0-9_-]{20,}/],
  ];
  const failures: string[] = [];
  for (const [area, to, fields, secret] of made) {
    try {
      await page.goto(`${rs.cs.url}/brands/${brand.id}/${area}`);
      await sendForm(page, `/brands/${brand.id}/${to}`, fields);
      expect(new URL(page.url()).pathname).toMatch(
        new RegExp(`^/brands/${brand.id}/${to}/created/[^/]+$`),
      );
      await expect(page.locator('main').textContent()).resolves.toMatch(secret);
      await lookAt(page, owner.email, `every-page-owner-${area}-secret`);
    } catch (err) {
      failures.push(
        `${area}: ${err instanceof Error ? err.message.split('\n').slice(0, 12).join(' ') : String(err)}`,
      );
    }
  }
  expect(failures).toEqual([]);
}, 300_000);

// The 404s a signed-in person meets (an address nothing serves, a tab their brand has not,
// another brand's page, a brand id that is none) keep the header of every page: who is signed
// in and the one Sign out. They get every page's checks, and name nothing of the other brand.
it('answers every 404 of a signed-in person with a page like every other', async () => {
  const { brand, owner } = await brandWithOwner(rs.cs);
  const other = await brandWithOwner(rs.cs);
  const page = await signIn(browser, rs.cs, owner.email);
  const failures: string[] = [];
  for (const path of [
    '/no-such-page',
    `/brands/${brand.id}/no-such-tab`,
    `/brands/${other.brand.id}/keys`,
    '/brands/not-a-brand/keys',
  ]) {
    try {
      const response = await page.goto(`${rs.cs.url}${path}`);
      expect({ path, status: response?.status() }).toEqual({ path, status: 404 });
      const text = (await page.locator('body').textContent()) ?? '';
      expect(text).not.toContain(other.owner.email);
      expect(text).not.toContain(other.brand.name);
      await lookAt(page, owner.email, `every-page-owner-404-${shotName(path)}`);
    } catch (err) {
      failures.push(
        `${path}: ${err instanceof Error ? err.message.split('\n').slice(0, 12).join(' ') : String(err)}`,
      );
    }
  }
  expect(failures).toEqual([]);
}, 300_000);
