// A hostile review (2026-12-01) of the newest forms: the one-time secret forms (a key, its
// roll, a receiver, its rotation, an audit stream, a SCIM token, its rotation) and "Send them
// again…" of an audit stream's set-aside entries. Each is refused like every older form when
// posted by a signed-in browser without the session's form token, with another session's, or
// from another origin, and nothing is created. They are protected by construction (the brand
// router checks the Origin and the token before any route); this keeps it so.
// Real records, webhooks, plans, gateway, SMTP sink and console.
import { csrfOf } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(() => cs?.close());

it('the newest forms refuse a post without the form token, with another session’s, or from another origin', async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const http = await signInHttp(cs, owner.email);
  const other = await brandWithOwner(cs);
  const otherHttp = await signInHttp(cs, other.owner.email);
  const theirs = csrfOf((await otherHttp.get(`/brands/${other.brand.id}/keys`)).body);
  const mine = csrfOf((await http.get(`/brands/${brand.id}/keys`)).body);
  const b = `/brands/${brand.id}`;
  const forms: Array<[string, Record<string, string>]> = [
    [
      `${b}/keys`,
      {
        name: 'Forged',
        environment: 'live',
        _once: `${Date.now().toString(36)}.${'a'.repeat(24)}`,
      },
    ],
    [`${b}/keys/key_${'a'.repeat(20)}/roll`, { old_key_expires_in: 'now' }],
    [`${b}/receivers`, { url: 'https://example.com/hook', label: 'Forged', events: 'payout.paid' }],
    [`${b}/receivers/rcv_${'a'.repeat(20)}/rotate`, {}],
    [`${b}/audit-streams`, { kind: 'https', label: 'Forged', url: 'https://example.com/a' }],
    [`${b}/audit-streams/ast_${'a'.repeat(20)}/resend-set-aside`, {}],
    [`${b}/provisioning/tokens`, { name: 'Forged' }],
    [`${b}/provisioning/tokens/sct_${'a'.repeat(20)}/rotate`, {}],
  ];
  for (const [path, form] of forms) {
    for (const [how, fields, origin, code] of [
      ['no token', form, undefined, 'csrf_token_invalid'],
      ["another session's token", { ...form, _csrf: theirs }, undefined, 'csrf_token_invalid'],
      ['another origin', { ...form, _csrf: mine }, 'https://evil.example', 'forbidden_origin'],
      ['no origin', { ...form, _csrf: mine }, null, 'forbidden_origin'],
    ] as const) {
      const answer = await http.post(path, fields, { origin });
      expect({
        path,
        how,
        status: answer.status,
        code: answer.headers.get('x-console-error'),
      }).toEqual({ path, how, status: 403, code });
    }
  }
  expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(0);
  const page = (p: string) => http.get(`${b}/${p}`).then((r) => r.body);
  expect(await page('receivers')).not.toContain('Forged');
  expect(await page('audit-streams')).not.toContain('Forged');
  expect(await page('provisioning')).not.toContain('Forged');
});
