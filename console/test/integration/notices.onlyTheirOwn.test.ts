// A page's `?done=` names its notice in a table of its own. Five pages read it as
// `NOTICES[req.query.done]`, which also finds what every object inherits: `?done=constructor`
// drew an empty notice box (a function's text rendered as nothing) on Your sessions, Your
// passkeys, Your invitations, Single sign-on and Provisioning. Only the table's own keys draw
// a notice now (views/doneNotice.ts). Real records, webhooks, plans, gateway and console.
import type { Answer } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

/** The notice boxes of a page: status notices and alerts alike, with what they say. */
const noticesOf = (page: Answer): string[] =>
  [...page.body.matchAll(/<div class="notice [a-z]+" role="(?:status|alert)">([^<]*)/g)].map(
    (m) => m[1]!,
  );

it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
  '?done=%s draws no notice on any of the pages',
  async (done) => {
    const { brand, owner } = await brandWithOwner(cs);
    const http = await signInHttp(cs, owner.email);
    const pages = [
      '/sessions',
      '/passkeys',
      '/invitations',
      `/brands/${brand.id}/sso`,
      `/brands/${brand.id}/provisioning`,
      `/brands/${brand.id}/members`,
    ];
    const drewMore: string[] = [];
    for (const path of pages) {
      const plain = await http.get(path);
      const asked = await http.get(`${path}?done=${done}`);
      expect({ path, status: asked.status }).toEqual({ path, status: 200 });
      if (noticesOf(asked).length !== noticesOf(plain).length) drewMore.push(path);
    }
    expect(drewMore).toEqual([]);
  },
);

it("a page's own ?done= still draws its notice", async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const http = await signInHttp(cs, owner.email);
  expect(noticesOf(await http.get('/sessions?done=others'))).toContain(
    'Every other session is signed out.',
  );
  expect(noticesOf(await http.get(`/brands/${brand.id}/provisioning?done=settings`))).toContain(
    'Saved.',
  );
});
