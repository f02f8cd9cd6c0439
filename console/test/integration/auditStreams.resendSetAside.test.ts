// The audit stream page's "Send again" of set-aside entries, browser-free: an entry its
// destination refused as too large alone on every attempt of a round is shown as set aside; an
// owner is asked first (the page says the entries arrive out of order), then the entry is
// queued once and delivered once after the destination is fixed, with a plain-word notice; a
// second post queues nothing and says so; an admin sees no link and is refused by the service.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import { randomHex, TEST_ADMIN_TOKEN, waitFor } from '@brand/testkit';
import { csrfOf } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;
let streams: Caller<AuditStreamServiceClient>;
let closeStreams: () => void;
let server: Server;
let base = '';
/** The destination refuses (413) any body holding this text; '' once it is fixed. */
let refuseHolding = '';
/** Positions the destination took, in arrival order. */
const accepted: number[] = [];

beforeAll(async () => {
  // a round of the retry schedule in about 3 s
  cs = await startConsoleStack({ webhooksEnv: { RETRY_TIME_SCALE: '0.00001' } });
  const client = connectClient(AuditStreamServiceClient, cs.stack.webhooks!.address);
  streams = createCaller(client, { deadlineMs: 10_000, token: TEST_ADMIN_TOKEN });
  closeStreams = () => client.close();
  server = createServer(cs.ca.tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (refuseHolding !== '' && body.includes(refuseHolding)) {
        res.writeHead(413, { 'content-type': 'text/plain' }).end('request entity too large');
        return;
      }
      for (const line of body
        .trimEnd()
        .split('\n')
        .filter((l) => l !== ''))
        accepted.push((JSON.parse(line) as { position: number }).position);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://localhost:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  closeStreams?.();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await cs?.close();
});

it('an owner sends a set-aside entry again after a confirm: queued once, delivered once, said in plain words', async () => {
  const { brand, owner } = await brandWithOwner(cs);
  const adminEmail = `admin-${randomHex(4)}@brand.test`;
  await cs.stack.admin.addMember({ brandId: brand.id, email: adminEmail, role: 'admin' });
  const added = await streams('addAuditStream', {
    brand_id: brand.id,
    kind: 'https',
    label: 'SIEM',
    url: `${base}/audit`,
    token: '',
    datadog_site: '',
    splunk_index: '',
    actor_email: owner.email,
  });
  const id = added.stream!.id;
  const name = 'S'.repeat(100);
  refuseHolding = name;
  await cs.stack.admin.createKey({ brandId: brand.id, actorEmail: owner.email, name });
  await cs.stack.admin.createKey({ brandId: brand.id, actorEmail: owner.email, name: 'After' });
  // the stream's run of that entry alone, set aside once its round was refused
  const aside = await waitFor(
    async () => {
      const got = await streams('getAuditStream', { stream_id: id, deliveries: 100 });
      return got.stream!.set_aside === 1
        ? got.deliveries.find((d) => d.last_error.includes('set aside'))
        : undefined;
    },
    { timeoutMs: 45_000, intervalMs: 200, what: 'the oversized entry set aside' },
  );
  const page = `/brands/${brand.id}/audit-streams/${id}`;

  // an admin reads the page but is offered nothing, and a forged post is refused by the service
  const adminHttp = await signInHttp(cs, adminEmail);
  const adminPage = await adminHttp.get(page);
  expect(adminPage.body).toContain('1 entry set aside:');
  expect(adminPage.body).not.toContain(`${page}/resend-set-aside`);
  const forged = await adminHttp.post(`${page}/resend-set-aside`, {
    _csrf: csrfOf(adminPage.body),
  });
  expect(forged.status).toBe(403);

  // another brand's owner naming this stream under their own brand: not found (not "forbidden",
  // which would say it exists), and nothing queued
  const other = await brandWithOwner(cs);
  const otherHttp = await signInHttp(cs, other.owner.email);
  const otherList = await otherHttp.get(`/brands/${other.brand.id}/audit-streams`);
  const crossed = `/brands/${other.brand.id}/audit-streams/${id}/resend-set-aside`;
  expect((await otherHttp.get(crossed)).status).toBe(404);
  const crossedPost = await otherHttp.post(crossed, { _csrf: csrfOf(otherList.body) });
  expect(crossedPost.status).toBe(404);
  expect(crossedPost.body).not.toContain('SIEM');
  const still = await streams('getAuditStream', { stream_id: id, deliveries: 100 });
  expect(still.stream!.set_aside).toBe(1);
  expect(still.deliveries.find((d) => d.id === aside.id)!.status).toBe(aside.status);

  const http = await signInHttp(cs, owner.email);
  const shown = await http.get(page);
  expect(shown.body).toContain('1 entry set aside:');
  // one entry is spoken of as one (it read "refused each … went on without it. They are …")
  expect(shown.body).toContain(
    'its destination refused it as too large, even alone, on every attempt of a round of retries, so the stream went on without it. It is still in the audit log.',
  );
  expect(shown.body).toContain(`href="${page}/resend-set-aside"`);
  // the confirm page asks, saying what happens to the order
  const confirm = await http.get(`${page}/resend-set-aside`);
  expect(confirm.status).toBe(200);
  expect(confirm.body).toContain('Send 1 entry to “SIEM” again?');
  expect(confirm.body).toContain('It arrives out of order</strong>');
  expect(confirm.body).toContain(`href="${page}"`); // Cancel

  refuseHolding = '';
  const sent = await http.post(`${page}/resend-set-aside`, { _csrf: csrfOf(confirm.body) });
  expect(sent.status).toBe(303);
  expect(sent.location).toBe(`${page}?done=resent`);
  expect((await http.get(sent.location!)).body).toContain(
    'The set-aside entries are queued to be sent again. They arrive out of order',
  );
  // posted again (a double click, back and resubmit): nothing more queued, and said so
  const again = await http.post(`${page}/resend-set-aside`, { _csrf: csrfOf(confirm.body) });
  expect(again.status).toBe(422);
  expect(again.body).toContain('Nothing set aside from audit stream');

  const position = aside.first_position;
  await waitFor(
    async () => {
      const { stream } = await streams('getAuditStream', { stream_id: id, deliveries: 1 });
      return stream!.set_aside === 0 && accepted.includes(position);
    },
    { timeoutMs: 30_000, intervalMs: 200, what: 'the set-aside entry delivered' },
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(accepted.filter((p) => p === position)).toHaveLength(1);
  // nothing left to send: the page shows no panel, and the confirm page leads back to it
  expect((await http.get(page)).body).not.toContain('set aside:');
  const gone = await http.get(`${page}/resend-set-aside`);
  expect(gone.status).toBe(303);
  expect(gone.location).toBe(page);

  const { rows } = await cs.stack.db.pool.query<{ actor_email: string }>(
    `select actor_email from webhooks.activity
     where subject_id = $1 and action = 'audit_stream.set_aside_resent'`,
    [id],
  );
  expect(rows).toEqual([{ actor_email: owner.email }]);
});
