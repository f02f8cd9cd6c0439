// The Single sign-on form changed by someone else between the console's read and its write, as
// settings.changedBeforeTheWrite does for the other four settings forms. The console reads the
// connection, decides what the person changed (forms/shownFields.ts) and writes it in a second
// call naming the connection it was decided on (if_updated_at); when another owner, brandctl or
// the API committed a change in between, records refuses the write (precondition_failed). That
// was a 422 "reload it and save again", the person's typing lost; now the console reads again and
// decides once more (forms/ontoWhatWasRead.ts): another field's change is kept beside the
// person's, one of the same field is the usual 409 (edit_conflict) with the person's typing kept,
// and a client secret typed on a page that showed another client than the connection has now is
// refused (409, naming the client id). A first connection saved while another owner's went in is
// decided against the empty form the page showed: domains set differently are a 409, theirs kept
// (records' refusal of the second first connection, which the console would otherwise have
// written over the first on reading again). Each race holds the brand's row (what a
// connection's write locks first), queues the other owner's save behind it, then the person's
// (read before the lock is let go, its write queued second), and lets them go in that order. The
// connections here are not in use yet (no domain proven), so owners signed in by emailed link may
// change them. Real records, console and identity provider (oidc-provider,
// packages/testkit/src/testIdp.ts).
import {
  LOCK_QUEUE_SERVICE_ENV,
  queueBehindRowLock,
  randomHex,
  TEST_WEBHOOK_SECRET_KEY,
} from '@brand/testkit';
import type { TestIdp } from '@brand/testkit';
import { SecretBox } from '@brand/shared/secrets';
import { csrfOf, formAsPosted, type Answer, type ConsoleHttp } from '../browserlessClient';
import { LOCK_QUEUE_CONSOLE_ENV, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { idpClient, startTestIdp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let registered: ReturnType<typeof idpClient>[];

beforeAll(async () => {
  cs = await startConsoleStack({
    consoleEnv: LOCK_QUEUE_CONSOLE_ENV,
    recordsEnv: LOCK_QUEUE_SERVICE_ENV,
    webhooksEnv: LOCK_QUEUE_SERVICE_ENV,
  });
  registered = Array.from({ length: 4 }, (_, i) => idpClient(cs, `race-${i}`));
  idp = await startTestIdp({ clients: registered });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

/**
 * A brand connected to the test provider through the console (client `registered[0]`; not
 * connected with `connect: false`), its domain not proven, and two owners signed in by emailed
 * link, each with the form open.
 */
async function twoOwners({ connect = true } = {}) {
  const domain = `race-${randomHex(4)}.test`;
  const made = await cs.stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@${domain}`,
  });
  const second = await cs.stack.admin.addMember({
    brandId: made.brand.id,
    email: `second-${randomHex(4)}@${domain}`,
    role: 'owner',
  });
  const action = `/brands/${made.brand.id}/sso`;
  const a = await signInHttp(cs, made.owner.email);
  const b = await signInHttp(cs, second.email);
  if (connect) {
    const connected = await a.post(action, {
      _csrf: csrfOf((await a.get(action)).body),
      issuer: idp.issuer,
      client_id: registered[0]!.client_id,
      client_secret: registered[0]!.client_secret,
      allowed_domains: domain,
      enabled: 'on',
    });
    expect(connected.status).toBe(303);
  }
  const open = async (http: ConsoleHttp) => formAsPosted((await http.get(action)).body, action);
  return { brand: made.brand, domain, action, a, b, formA: await open(a), formB: await open(b) };
}

/** A first connection to the test provider (client `registered[0]`) at `domains`, turned on. */
const firstConnection = (domains: string) => ({
  issuer: idp.issuer,
  client_id: registered[0]!.client_id,
  client_secret: registered[0]!.client_secret,
  allowed_domains: domains,
  enabled: 'on',
});

/** The other owner's save, then the person's, queued behind the brand's row in that order. */
const otherThenSave = (
  brandId: string,
  other: () => Promise<Answer>,
  save: () => Promise<Answer>,
) =>
  queueBehindRowLock(
    cs.stack.db.pool,
    { sql: 'select 1 from records.brands where id = $1 for update', params: [brandId] },
    [other, save] as const,
  );

const stored = async (brandId: string) =>
  (
    await cs.stack.db.pool.query<{
      client_id: string;
      allowed_domains: string[];
      enabled: boolean;
      client_secret_ciphertext: Buffer;
      client_secret_key_id: string;
    }>('select * from records.sso_connections where brand_id = $1', [brandId])
  ).rows[0]!;

it("keeps another owner's 'disable single sign-on' saved meanwhile beside a domain edit", async () => {
  const t = await twoOwners();
  const { enabled: _on, ...disabled } = t.formB;
  const more = `more-${t.domain}`;
  const [other, saved] = await otherThenSave(
    t.brand.id,
    () => t.b.post(t.action, disabled),
    () => t.a.post(t.action, { ...t.formA, allowed_domains: `${t.domain}\n${more}` }),
  );
  expect(other.status).toBe(303);
  expect(saved.status).toBe(303);
  expect(saved.location).toBe(`/brands/${t.brand.id}/sso?done=saved`);
  const after = await stored(t.brand.id);
  expect({ allowed_domains: after.allowed_domains, enabled: after.enabled }).toEqual({
    allowed_domains: [t.domain, more],
    enabled: false,
  });
});

it('refuses a domain list over one saved meanwhile (409), keeping theirs and the typed list', async () => {
  const t = await twoOwners();
  const theirs = `theirs-${t.domain}`;
  const mine = `mine-${t.domain}`;
  const [other, saved] = await otherThenSave(
    t.brand.id,
    () => t.b.post(t.action, { ...t.formB, allowed_domains: `${t.domain}\n${theirs}` }),
    () => t.a.post(t.action, { ...t.formA, allowed_domains: `${t.domain}\n${mine}` }),
  );
  expect(other.status).toBe(303);
  expect(saved.status).toBe(409);
  expect(saved.headers.get('x-console-error')).toBe('edit_conflict');
  expect(saved.body).toContain('allowed email domains');
  expect(saved.body).toContain('someone else changed the');
  // the form keeps what the person typed, to check and save again
  expect(formAsPosted(saved.body, t.action).allowed_domains).toBe(`${t.domain}\n${mine}`);
  expect((await stored(t.brand.id)).allowed_domains).toEqual([t.domain, theirs]);
});

it('refuses a client secret typed for the client the page showed once another owner changed it meanwhile', async () => {
  const t = await twoOwners();
  const theirs = registered[1]!;
  const [other, saved] = await otherThenSave(
    t.brand.id,
    () =>
      t.b.post(t.action, {
        ...t.formB,
        client_id: theirs.client_id,
        client_secret: theirs.client_secret,
      }),
    () => t.a.post(t.action, { ...t.formA, client_secret: `typed-${randomHex(8)}` }),
  );
  expect(other.status).toBe(303);
  expect(saved.status).toBe(409);
  expect(saved.headers.get('x-console-error')).toBe('edit_conflict');
  expect(saved.body).toContain('client id');
  const after = await stored(t.brand.id);
  expect(after.client_id).toBe(theirs.client_id);
  // the secret typed for the client the page showed went nowhere
  const box = new SecretBox(TEST_WEBHOOK_SECRET_KEY);
  const secret = box.open(
    { ciphertext: after.client_secret_ciphertext, keyId: after.client_secret_key_id },
    t.brand.id,
  );
  expect(secret).toBe(theirs.client_secret);
});

it("refuses a first connection over another owner's made meanwhile (409), keeping theirs", async () => {
  const t = await twoOwners({ connect: false });
  const theirs = `theirs-${t.domain}`;
  const [other, saved] = await otherThenSave(
    t.brand.id,
    () => t.b.post(t.action, { ...t.formB, ...firstConnection(theirs) }),
    () => t.a.post(t.action, { ...t.formA, ...firstConnection(t.domain) }),
  );
  expect(other.status).toBe(303);
  expect(saved.status).toBe(409);
  expect(saved.headers.get('x-console-error')).toBe('edit_conflict');
  expect(saved.body).toContain('allowed email domains');
  expect(formAsPosted(saved.body, t.action).allowed_domains).toBe(t.domain);
  expect((await stored(t.brand.id)).allowed_domains).toEqual([theirs]);
});

it('refuses a form opened before any connection over one another owner saved since (409), keeping theirs', async () => {
  // No race: the other owner's first connection committed before the person's save was even
  // read, so the console read theirs and decided the post against the page. The page, with no
  // connection, showed nothing, and a post with nothing shown was taken whole, written over
  // theirs; it now shows the empty form it is.
  const t = await twoOwners({ connect: false });
  const theirs = `theirs-${t.domain}`;
  expect((await t.b.post(t.action, { ...t.formB, ...firstConnection(theirs) })).status).toBe(303);
  const saved = await t.a.post(t.action, { ...t.formA, ...firstConnection(t.domain) });
  expect(saved.status).toBe(409);
  expect(saved.headers.get('x-console-error')).toBe('edit_conflict');
  expect(saved.body).toContain('allowed email domains');
  expect(formAsPosted(saved.body, t.action).allowed_domains).toBe(t.domain);
  expect((await stored(t.brand.id)).allowed_domains).toEqual([theirs]);
});
