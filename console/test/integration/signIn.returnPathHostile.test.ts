// A hostile review of the return path after signing in (2026-12-01). The return path refused
// sign-in and sign-out pages ("which would only ask again"), but only as spelled in lower case
// and without dot segments, while the console's routes match any case and a browser removes
// "/./", "/../" and "%2e" segments before asking: a link to
// `/sign-in?next=/SIGN-IN/<token>` (or `/./sign-in/<token>`, `/%2e/sign-in/<token>`) sent by
// someone who requested a sign-in link for their own address landed the person who signed in
// next on that link's page, one press from working in the sender's brands as the sender
// (login CSRF). Such a return path is now refused: the sign-in lands on the overview.
// Also kept here: a return path left by one person's link on a shared computer lands the next
// person on a clean "nothing here" page of a brand they are not a member of, naming nothing of
// it; as every 404 a signed-in person meets (an address nothing serves, another brand's page),
// it keeps their own header: who is signed in, and Sign out.
// Real records, webhooks, plans, gateway, SMTP sink and console.
import { ConsoleHttp, headerOf } from '../browserlessClient';
import { brandWithOwner, signInAfterReturnPath, signInOn } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

/** The path of a sign-in link the sender requested for their own address (unspent). */
async function linkOf(email: string): Promise<string> {
  const since = Date.now() - 1_000;
  expect((await new ConsoleHttp(cs.url).post('/sign-in', { email })).status).toBe(200);
  return new URL(await cs.latestLink(email, since)).pathname;
}

it.each([
  (link: string) => link.replace('/sign-in/', '/SIGN-IN/'),
  (link: string) => link.replace('/sign-in/', '/Sign-In/'),
  (link: string) => `/.${link}`,
  (link: string) => `/%2e${link}`,
  (link: string) => `/brands/%2E%2E${link}`,
  (link: string) => `/brands/..${link}`,
])("a return path to someone else's sign-in link (%#) is ignored", async (spelled) => {
  const sender = await brandWithOwner(cs);
  const next = spelled(await linkOf(sender.owner.email));
  const { brand, http, landed } = await signInAfterReturnPath(cs, next);
  expect(landed.location).toBe(`/brands/${brand.id}`);
  // had it been followed, the page offered a sign-in as the sender
  const there = await http.get(landed.location!);
  expect(there.body).not.toContain(sender.owner.email);
});

it.each(['/SIGN-OUT', '/./sign-out', '/Sign-Out-Everywhere/..', '/brands/../sign-in?x=1'])(
  'a return path of %s is ignored',
  async (next) => {
    const { brand, landed } = await signInAfterReturnPath(cs, next);
    expect(landed.location).toBe(`/brands/${brand.id}`);
  },
);

it("another person's return path on a shared computer lands on a clean page naming nothing", async () => {
  const first = await brandWithOwner(cs);
  const second = await brandWithOwner(cs);
  const page = `/brands/${first.brand.id}/keys?new=1`;
  const http = new ConsoleHttp(cs.url);
  // the first person's page asked for a sign-in; they walked away, the second signs in
  const asked = await http.get(page);
  expect((await http.get(asked.location!)).status).toBe(200);
  const landed = await signInOn(cs, http, second.owner.email);
  expect(landed.location).toBe(page);
  const there = await http.get(page);
  expect(there.status).toBe(404);
  expect(there.body).toContain('There is nothing here.');
  expect(there.body).not.toContain(first.brand.name);
  expect(there.body).not.toContain(first.owner.email);
  expect(headerOf(there.body)).toContain(second.owner.email);
  // spent: the second person's next sign-in lands on their own brand
  expect((await signInOn(cs, http, second.owner.email)).location).toBe(
    `/brands/${second.brand.id}`,
  );
});

it("a signed-in person's 404s keep their header; a visitor's say nothing of anyone", async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const other = await brandWithOwner(cs);
  const http = new ConsoleHttp(cs.url);
  await signInOn(cs, http, owner.email);
  const visitor = new ConsoleHttp(cs.url);
  for (const path of [
    '/no-such-page',
    '/static/no-such.css',
    `/brands/${brand.id}/no-such-tab`,
    `/brands/${other.brand.id}/keys`,
    '/brands/not-a-brand/keys',
  ]) {
    const theirs = await http.get(path);
    expect({ path, status: theirs.status }).toEqual({ path, status: 404 });
    expect(theirs.body).toContain('There is nothing here.');
    const header = headerOf(theirs.body);
    expect({ path, named: header.includes(owner.email) }).toEqual({ path, named: true });
    expect(header.match(/>\s*Sign out\s*</g)).toHaveLength(1);
    expect(theirs.body).not.toContain(other.owner.email);
    expect(theirs.body).not.toContain(other.brand.name);

    const visitors = await visitor.get(path);
    if (visitors.status === 404) expect(headerOf(visitors.body)).not.toContain('Sign out');
    else expect(visitors.location).toMatch(/^\/sign-in/);
  }
});
