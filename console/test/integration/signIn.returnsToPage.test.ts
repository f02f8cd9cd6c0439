// A form posted after the session ended is refused with a 401 page whose Sign in led to the
// plain sign-in page: once signed in, the person landed on their brand's overview instead of
// the page they were on. Sign in now carries that page (same origin, a relative path only) and
// every way in lands there once; anything else offered as the return (another host, a
// protocol-relative or absolute URL) is ignored and the sign-in lands where it always did.
// Real records, webhooks, plans, gateway, SMTP sink and console.
import { ConsoleHttp } from '../browserlessClient';
import { brandWithOwner, signInAfterReturnPath, signInOn } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

it("the 401 page's Sign in returns to the page whose form was refused, once", async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const page = `/brands/${brand.id}/keys?new=1`;
  // the key form posted from its page by a browser whose session has ended
  const refused = await fetch(`${cs.url}/brands/${brand.id}/keys`, {
    method: 'POST',
    headers: {
      origin: cs.url,
      referer: `${cs.url}${page}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'name=ci&environment=test',
    redirect: 'manual',
  });
  expect(refused.status).toBe(401);
  const href = /<a class="button" href="([^"]*)">Sign in</.exec(await refused.text())?.[1];
  expect(href).toBe(`/sign-in?next=${encodeURIComponent(page)}`);

  const http = new ConsoleHttp(cs.url);
  expect((await http.get(href!.replace(/&amp;/g, '&'))).status).toBe(200);
  expect((await signInOn(cs, http, owner.email)).location).toBe(page);
  // spent: the next sign-in of this browser lands where it always does
  expect((await signInOn(cs, http, owner.email)).location).toBe(`/brands/${brand.id}`);
});

it.each(['//evil.example/brands', '/\\evil.example', 'https://evil.example/brands', '/sign-in'])(
  'a return path of %s is ignored: the sign-in lands on the overview',
  async (next) => {
    const { brand, landed } = await signInAfterReturnPath(cs, next);
    expect(landed.location).toBe(`/brands/${brand.id}`);
  },
);

it('a page opened without a session goes to sign in and back to that page, once', async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const page = `/brands/${brand.id}/activity?who=operator`;
  const http = new ConsoleHttp(cs.url);
  const asked = await http.get(page);
  expect({ status: asked.status, location: asked.location }).toEqual({
    status: 303,
    location: `/sign-in?next=${encodeURIComponent(page)}`,
  });
  expect((await http.get(asked.location!)).status).toBe(200);
  expect((await signInOn(cs, http, owner.email)).location).toBe(page);
  // a brand's overview (its router reads the path as "/") is carried as any other page
  const overview = await new ConsoleHttp(cs.url).get(`/brands/${brand.id}`);
  expect(overview.location).toBe(`/sign-in?next=${encodeURIComponent(`/brands/${brand.id}`)}`);
  // the console's root needs no return: it is where a sign-in lands anyway
  const root = await new ConsoleHttp(cs.url).get('/');
  expect(root.location).toBe('/sign-in');
});
