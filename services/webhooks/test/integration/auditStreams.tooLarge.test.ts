import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import {
  createTestCa,
  makeBrandWithKey,
  startStack,
  TEST_ADMIN_TOKEN,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type BrandWithKey,
  type Stack,
  type TestCa,
} from '@brand/testkit';

/**
 * A destination that refuses large requests (a hostile review, 2026-11-30): a proxy or intake
 * answering 413 above some body size. A stream's run (up to AUDIT_STREAM_BATCH_MAX entries) was
 * never made smaller, so it was sent again on the retry schedule forever and everything after it
 * waited. Here a real HTTPS JSON-lines receiver answers 413 to any body over `maxBody` bytes:
 * every entry it can take still arrives, in position order, and one entry it refuses even alone
 * is set aside with the reason on its delivery, not retried for ever.
 */

let stack: Stack;
let ca: TestCa;
let streams: Caller<AuditStreamServiceClient>;
let closeStreams: () => void;
let server: Server;
let url = '';
let brand: BrandWithKey;
/** What the receiver accepted (positions, in arrival order) and the sizes it refused with 413. */
const accepted: number[] = [];
const tooLarge: number[] = [];
let maxBody = 0;

beforeAll(async () => {
  ca = createTestCa();
  stack = await startStack({
    webhooks: {
      topic: uniqueTopic('audit-413'),
      groupId: uniqueConsumerGroup('audit-413'),
      caFile: ca.caFile,
    },
  });
  const client = connectClient(AuditStreamServiceClient, stack.webhooks!.address);
  streams = createCaller(client, { deadlineMs: 10_000, token: TEST_ADMIN_TOKEN });
  closeStreams = () => client.close();
  server = createServer(ca.tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (maxBody > 0 && body.length > maxBody) {
        tooLarge.push(body.length);
        res.writeHead(413, { 'content-type': 'text/plain' }).end('request entity too large');
        return;
      }
      for (const line of body.toString('utf8').trimEnd().split('\n'))
        if (line !== '') accepted.push((JSON.parse(line) as { position: number }).position);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}/audit`;
  brand = await makeBrandWithKey(stack.admin);
}, 120_000);

afterAll(async () => {
  closeStreams?.();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await stack?.close();
  ca?.remove();
});

const keys = async (n: number, name?: string): Promise<void> => {
  for (let i = 0; i < n; i++)
    await stack.admin.createKey({ brandId: brand.brand.id, actorEmail: brand.owner.email, name });
};

/** The brand's entries after `after` with the bytes of each as a JSON line of an HTTPS run. */
async function lines(
  after: number,
): Promise<Array<{ position: number; bytes: number; action: string }>> {
  const { rows } = await stack.db.pool.query<{ seq: string; entry_json: string }>(
    `select seq::text, entry_json from webhooks.audit_entries where brand_id = $1 and seq > $2
     order by seq`,
    [brand.brand.id, after],
  );
  return rows.map((r) => ({
    position: Number(r.seq),
    bytes: Buffer.byteLength(`{"position":${r.seq},${r.entry_json.slice(1)}\n`),
    action: (JSON.parse(r.entry_json) as { action: string }).action,
  }));
}

/** Until the stream's head is at least `atLeast` (every entry made stored) and it was sent all. */
const delivered = (id: string, atLeast: number) =>
  waitFor(
    async () => {
      const { stream } = await streams('getAuditStream', { stream_id: id, deliveries: 0 });
      return stream!.head >= atLeast && stream!.delivered_through === stream!.head
        ? stream!
        : undefined;
    },
    { timeoutMs: 45_000, intervalMs: 250, what: 'the stream delivered through its head' },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; 413 answers to bodies of ${tooLarge.join(', ')} bytes`);
  });

it('splits a run the destination refuses as too large, and sets aside one entry it refuses alone', async () => {
  const added = await streams('addAuditStream', {
    brand_id: brand.brand.id,
    kind: 'https',
    label: 'behind a proxy',
    url,
    token: '',
    datadog_site: '',
    splunk_index: '',
    actor_email: brand.owner.email,
  });
  const id = added.stream!.id;
  const from = added.stream!.started_after + 1;
  // a backlog of one run: the stream disabled while 24 keys are made, then enabled
  await streams('updateAuditStream', { stream_id: id, enabled: false, actor_email: '' });
  await keys(24);
  const keyLine = Math.max(
    ...(await lines(from - 1)).filter((l) => l.action === 'key.created').map((l) => l.bytes),
  );
  // three entries a request at most
  maxBody = Math.floor(keyLine * 3.5);
  await streams('updateAuditStream', { stream_id: id, enabled: true, actor_email: '' });
  const first = await delivered(id, from + 24);
  expect(tooLarge.length).toBeGreaterThan(0);
  console.info(`413 answers to bodies of ${tooLarge.join(', ')} bytes (limit ${maxBody})`);
  expect([...new Set(accepted)]).toEqual(
    Array.from({ length: first.head - from + 1 }, (_, k) => from + k),
  );

  // One entry the destination refuses even alone (a key named with 100 characters) among
  // others it takes: set aside, the reason on its delivery; the entries after it arrive.
  maxBody = keyLine + 40;
  const before = first.head;
  await keys(2);
  await keys(1, 'B'.repeat(100));
  await keys(2);
  const second = await delivered(id, before + 5);
  const newer = await lines(before);
  const big = newer.find((l) => l.bytes > maxBody)!;
  expect(big).toBeDefined();
  expect(newer.filter((l) => l.bytes > maxBody)).toEqual([big]);
  expect([...new Set(accepted)].filter((p) => p > before)).toEqual(
    newer.map((l) => l.position).filter((p) => p !== big.position && p <= second.head),
  );
  const { deliveries } = await streams('getAuditStream', { stream_id: id, deliveries: 100 });
  const setAside = deliveries.find(
    (d) => d.first_position === big.position && d.last_position === big.position,
  );
  expect(setAside).toMatchObject({
    last_status: 413,
    last_error: expect.stringMatching(/413.*set aside/) as unknown,
  });
  const { rows } = await stack.db.pool.query<{ status: string }>(
    `select status from webhooks.deliveries where id = $1`,
    [setAside!.id],
  );
  expect(rows[0]!.status).toBe('failed');
});
