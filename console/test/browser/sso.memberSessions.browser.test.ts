// Members' sessions and the activity's origins in a real browser (Debian's Chromium via playwright-core) against a
// real OpenID provider: two members sign in through the brand's single sign-on from their own
// browsers; the owner opens Members' sessions, sees both with their devices and addresses, and
// signs one out; the Activity page then shows that, and a refused sign-in, each with the address
// and browser it came from. axe-core checks each page; screenshots go to docs/console/
// (member-sessions, activity-origin).
import type { Browser } from 'playwright-core';
import { randomHex, type TestIdp } from '@brand/testkit';
import { ConsoleHttp } from '../browserlessClient';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import {
  authorizationUrlOf,
  brandWithSso,
  IdpBrowser,
  idpClient,
  startSso,
  startTestIdp,
} from '../ssoActors';
import { expectAccessible, launchChromium, screenshot, signIn } from './browserKit';

let cs: ConsoleStack;
let idp: TestIdp;
let browser: Browser;
let client: ReturnType<typeof idpClient>;

beforeAll(async () => {
  cs = await startConsoleStack({ publicHost: 'localhost' });
  client = idpClient(cs, 'shots');
  idp = await startTestIdp({ clients: [client] });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await cs?.close();
});

/** A member signs in through the brand's SSO from a browser that names itself `userAgent`. */
async function ssoFrom(email: string, userAgent: string): Promise<ConsoleHttp> {
  idp.addUser({ email, password: `pw-${email}` });
  const http = new ConsoleHttp(cs.url);
  http.userAgent = userAgent;
  const { answer } = await startSso(cs, { email }, http);
  const { callbackUrl } = await new IdpBrowser().authorize(
    authorizationUrlOf(answer.body),
    cs.url,
    {
      email,
      password: `pw-${email}`,
    },
  );
  const done = await http.get(callbackUrl!.slice(cs.url.length));
  expect(done.status).toBe(303);
  return http;
}

it('an owner sees the members’ SSO sessions and signs one out; the activity says where from', async () => {
  const { brand, domain, owner } = await brandWithSso(cs, idp, client, `acme-${randomHex(3)}.test`);
  const ana = `ana@${domain}`;
  const ben = `ben@${domain}`;
  await cs.stack.admin.addMember({ brandId: brand.id, email: ana, role: 'member' });
  await cs.stack.admin.addMember({ brandId: brand.id, email: ben, role: 'admin' });
  await ssoFrom(
    ana,
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  );
  const benHttp = await ssoFrom(
    ben,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  );
  // someone at the domain who is not a member: refused, and recorded as refused
  idp.addUser({ email: `eve@${domain}`, password: 'pw-eve' });
  const eve = new ConsoleHttp(cs.url);
  eve.userAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0';
  const started = await startSso(cs, { email: `eve@${domain}` }, eve);
  const { callbackUrl } = await new IdpBrowser().authorize(
    authorizationUrlOf(started.answer.body),
    cs.url,
    { email: `eve@${domain}`, password: 'pw-eve' },
  );
  expect((await eve.get(callbackUrl!.slice(cs.url.length))).status).toBe(401);

  const page = await signIn(browser, cs, owner.email);
  await page.goto(`${cs.url}/brands/${brand.id}/members`);
  await page.getByRole('link', { name: 'Members’ sessions' }).click();
  await page.getByRole('heading', { name: 'Members’ sessions', level: 1 }).waitFor();
  await page.getByRole('cell', { name: ana, exact: true }).waitFor();
  await page.getByRole('cell', { name: ben, exact: true }).waitFor();
  await expectAccessible(page);
  // each address and each time is read on its line: "127.0.0.1" never breaks after a dot, a time
  // only between its date and its time of day
  const lineBoxes = (selector: string) =>
    page.locator(selector).evaluateAll((els) => els.map((e) => e.getClientRects().length));
  await expect(lineBoxes('td code.address')).resolves.toEqual([1, 1]);
  for (const span of await lineBoxes('td time.utc span')) expect(span).toBe(1);
  // and a button's words on one line ("Sign out", not "Sign / out")
  const buttonLines = await page.locator('td button').evaluateAll((els) =>
    els.map((e) => {
      const words = document.createRange();
      words.selectNodeContents(e);
      return new Set(Array.from(words.getClientRects(), (r) => Math.round(r.top))).size;
    }),
  );
  expect(buttonLines).toEqual([1, 1]);
  await screenshot(page, 'member-sessions');

  await page
    .getByRole('button', { name: new RegExp(`^Sign out ${ben.replaceAll('.', '\\.')}`) })
    .click();
  await page.getByText('Signed out. That session has ended.').waitFor();
  await expect(page.getByRole('cell', { name: ben, exact: true }).count()).resolves.toBe(0);
  expect((await benHttp.get(`/brands/${brand.id}/keys`)).status).not.toBe(200);

  await page.goto(`${cs.url}/brands/${brand.id}/activity?action=member.`);
  await page.getByText(`${owner.email} ended a single sign-on session of ${ben}`).waitFor();
  await page
    .getByText(/tried to sign in with single sign-on; refused: the address is not a member/)
    .waitFor();
  await page.getByText(/Firefox\/127\.0/).waitFor();
  await expectAccessible(page);
  await screenshot(page, 'activity-origin');
}, 120_000);
