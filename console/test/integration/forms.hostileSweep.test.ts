// Every page and form the console shows a brand's owner, crawled from its front page as an outside
// checker would (no list of routes from this code), then read with hostile query strings and
// posted with hostile values: each field sent twice, very long, holding a NUL, a lone surrogate
// and markup, as invalid UTF-8, missing, as JSON, with ids in the action's path made up. The rule
// under test is the contract's: bad input is a 4xx with a stable reason, never a 5xx, and the
// console keeps serving. The area tests (account, SSO, SCIM hostile inputs) check each refusal's
// words; this one checks that nothing anyone can reach answers 5xx. A plain member sends the
// owner's pages and forms too, so the routes' refusals of a role meet the same values.
import { Role } from '@brand/proto/access/v1';
import { randomHex } from '@brand/testkit';
import type { ConsoleHttp } from '../browserlessClient';
import { signInHttp, startReceiverStack, type ReceiverStack } from '../consoleActors';
import { crawl, ENDS_A_SESSION, furnishedBrand, type Form } from '../consoleCrawl';

let rs: ReceiverStack;

beforeAll(async () => {
  rs = await startReceiverStack();
}, 120_000);
afterAll(() => rs?.close());

const NASTY = '\u0000\ud800<script>alert(1)</script>\u202e%00\'"--';

/** The hostile forms made from one as posted; the CSRF token stays, so each reaches its route. */
const VARIANTS: [string, (form: Form) => Form][] = [
  ['every field twice', (f) => mapFields(f, (v) => [first(v), `${first(v)}x`])],
  ['every field 4,000 characters', (f) => mapFields(f, () => 'x'.repeat(4_000))],
  ['every field a NUL, a lone surrogate and markup', (f) => mapFields(f, () => NASTY)],
  ['every number out of range', (f) => mapFields(f, () => '-99999999999999999999e999')],
  ['only the CSRF token', (f): Form => (f._csrf === undefined ? {} : { _csrf: f._csrf })],
];

const first = (v: string | string[]): string => (Array.isArray(v) ? (v[0] ?? '') : v);

function mapFields(form: Form, to: (v: string | string[]) => string | string[]): Form {
  return Object.fromEntries(Object.entries(form).map(([k, v]) => [k, k === '_csrf' ? v : to(v)]));
}

/** Sends a raw body with the session's cookie and the console's own Origin. */
async function postRaw(http: ConsoleHttp, path: string, body: string, type: string) {
  const res = await fetch(`${http.origin}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: http.cookie, origin: http.origin, 'content-type': type },
    body,
  });
  return { status: res.status, body: await res.text() };
}

/** Each id-like segment of a path (`key_…`, `whr_…`) replaced with made-up ones. */
function madeUpIds(path: string): string[] {
  const parts = path.split('/');
  const at = parts.findIndex((p, i) => i > 2 && /^[a-z]+_[A-Za-z0-9]+$/.test(p));
  if (at < 0) return [];
  return ['x%FF%FE', 'a'.repeat(300), '..%2F..%2Fsign-out', '%00', `${parts[at]!}'--`].map((id) =>
    [...parts.slice(0, at), id, ...parts.slice(at + 1)].join('/'),
  );
}

it.each([
  ['its owner, of every page and form they reach', undefined],
  ['a plain member, of every page and form the owner reaches', Role.ROLE_MEMBER],
])(
  'answers no hostile read or post with a 5xx: by %s',
  async (_, role) => {
    const furnished = await furnishedBrand(rs);
    const { brand } = furnished;
    const found = await crawl(furnished.http, brand.id);
    const person =
      role === undefined
        ? furnished.owner
        : await rs.cs.stack.admin.addMember({
            brandId: brand.id,
            email: `member-${randomHex(4)}@brand.test`,
            role,
          });
    let http = role === undefined ? furnished.http : await signInHttp(rs.cs, person.email);
    // the crawl reached the owner's areas, not only a sign-in page
    expect(found.pages.length).toBeGreaterThan(15);
    expect(found.forms.size).toBeGreaterThan(15);
    expect(found.filters.size).toBeGreaterThan(3);

    const failures: string[] = [];
    let refused = 0;
    const check = (what: string, status: number, body: string) => {
      if (status >= 400 && status < 500) refused++;
      if (status >= 500) failures.push(`${status} ${what}: ${body.slice(0, 200)}`);
    };
    const stillSignedIn = async () => {
      const res = await http.get(`/brands/${brand.id}/keys`);
      if (res.status !== 200) http = await signInHttp(rs.cs, person.email);
    };

    for (const [action, form] of found.filters) {
      for (const [name, make] of VARIANTS) {
        const query = new URLSearchParams();
        for (const [k, v] of Object.entries(make(form)))
          for (const x of [v].flat()) query.append(k, x);
        const res = await http.get(`${action}?${query.toString()}`);
        check(`GET ${action} (${name})`, res.status, res.body);
      }
    }

    const hostileQuery = `cursor=%FF%FE&page=-1&type=a&type=b&from=2026-13-45&q=${'x'.repeat(3_000)}&__proto__=1`;
    for (const page of found.pages) {
      const res = await http.get(`${page.split('?')[0]}?${hostileQuery}`);
      check(`GET ${page} with a hostile query`, res.status, res.body);
    }

    for (const [action, form] of found.forms) {
      if (ENDS_A_SESSION.test(action)) continue;
      for (const [name, make] of VARIANTS) {
        await stillSignedIn();
        const res = await http.post(action, make(form));
        check(`POST ${action} (${name})`, res.status, res.body);
      }
      const csrf = typeof form._csrf === 'string' ? form._csrf : '';
      const fieldNames = Object.keys(form).filter((k) => k !== '_csrf');
      const invalidUtf8 = [
        `_csrf=${encodeURIComponent(csrf)}`,
        ...fieldNames.map((k) => `${k}=%FF%FE%C0%AF`),
      ];
      await stillSignedIn();
      let res = await postRaw(
        http,
        action,
        invalidUtf8.join('&'),
        'application/x-www-form-urlencoded',
      );
      check(`POST ${action} (invalid UTF-8)`, res.status, res.body);
      res = await postRaw(
        http,
        action,
        JSON.stringify({
          _csrf: csrf,
          ...Object.fromEntries(fieldNames.map((k) => [k, { $ne: 1 }])),
        }),
        'application/json',
      );
      check(`POST ${action} (JSON with objects)`, res.status, res.body);
      for (const path of madeUpIds(action)) {
        await stillSignedIn();
        const answer = await http.post(path, form);
        check(`POST ${path} (a made-up id)`, answer.status, answer.body);
      }
    }

    expect(failures).toEqual([]);
    // most of it was refused as bad input (a 4xx), not taken
    expect(refused).toBeGreaterThan(150);
    // and the console still serves its owner
    await stillSignedIn();
    expect((await http.get(`/brands/${brand.id}/keys`)).status).toBe(200);
  },
  600_000,
);
