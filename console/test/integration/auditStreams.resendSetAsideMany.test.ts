// More entries set aside than one "Send again" queues (at most 100 a call, oldest first): the
// notice after the post said "The set-aside entries are queued to be sent again" whatever was
// left (a review of c980ad73, 2026-12-01); it says how many were queued and that the rest wait
// for another Send. 101 set-aside deliveries are written as setAsideRun leaves them (failed, one
// position each, not the stream's current run) rather than refused 101 rounds long.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import { randomHex, TEST_ADMIN_TOKEN } from '@brand/testkit';
import { csrfOf } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;
let streams: Caller<AuditStreamServiceClient>;
let closeStreams: () => void;
let server: Server;
let base = '';

beforeAll(async () => {
  cs = await startConsoleStack();
  const client = connectClient(AuditStreamServiceClient, cs.stack.webhooks!.address);
  streams = createCaller(client, { deadlineMs: 10_000, token: TEST_ADMIN_TOKEN });
  closeStreams = () => client.close();
  server = createServer(cs.ca.tls, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://localhost:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  closeStreams?.();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await cs?.close();
});

/** Positions far past the brand's head, so the stream's own runs never reach them. */
const FAR = 1_000_000;

it('says how many of the set-aside entries one Send queued, and that the rest wait for another', async () => {
  const { brand, owner } = await brandWithOwner(cs);
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
  const tag = randomHex(6);
  const db = cs.stack.db.pool;
  await db.query(
    `insert into webhooks.audit_entries (brand_id, seq, id, kind, created_at, entry_json)
     select $1, $2::bigint + g, 'aud_' || $3 || g, 'activity', now(), '{"action":"probe"}'
     from generate_series(1, 101) g`,
    [brand.id, FAR, tag],
  );
  await db.query(
    `with ev as (
       insert into webhooks.events (id, brand_id, type, created_at, object_json, test, producer)
       select 'evt_' || $3 || g, $1, 'audit.entries', now(),
         json_build_object('from', $2::bigint + g, 'through', $2::bigint + g)::text, false, 'audit'
       from generate_series(1, 101) g
       returning id, created_at
     )
     insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id,
       test, status, attempts, last_status, completed_at)
     select 'dlv_' || substr(ev.id, 5), ev.id, ev.created_at, 'audit.entries', $4, $1, false,
       'failed', 10, 413, now()
     from ev`,
    [brand.id, FAR, tag, id],
  );
  const page = `/brands/${brand.id}/audit-streams/${id}`;
  const http = await signInHttp(cs, owner.email);
  expect((await http.get(page)).body).toContain('101 entries set aside:');

  const confirm = await http.get(`${page}/resend-set-aside`);
  const sent = await http.post(`${page}/resend-set-aside`, { _csrf: csrfOf(confirm.body) });
  expect(sent.status).toBe(303);
  const after = await http.get(sent.location!);
  expect(after.body).not.toContain('The set-aside entries are queued to be sent again');
  expect(after.body).toContain('The oldest 100 set-aside entries are queued to be sent again');
  expect(after.body).toContain('The others are still set aside: send them again');
  expect(after.body).toContain('1 entry set aside:');
});
