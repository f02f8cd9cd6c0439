// What the audit-stream tests share. On a test database of their own: a Datadog stream added
// through streamService, its audit entries and a set-aside run. On a stack: the webhooks service
// with the AuditStream RPCs, an HTTPS stream of a brand, and a local HTTPS destination whose
// answer to each request the test decides (to refuse what it must).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'pg';
import {
  AuditStreamServiceClient,
  type AddAuditStreamResponse,
} from '@brand/proto/webhooks/v1/audit';
import { withTransaction } from '@brand/shared/db';
import { connectClient, createCaller, type Caller } from '@brand/shared/grpc';
import { SecretBox } from '@brand/shared/secrets';
import {
  createTestCa,
  startStack,
  TEST_ADMIN_TOKEN,
  uniqueConsumerGroup,
  uniqueTopic,
  type BrandWithKey,
  type Stack,
  type StackOptions,
  type TestCa,
} from '@brand/testkit';
import { insertBatch } from '../../src/streams/batchRepo';
import { addStream, type StreamDeps } from '../../src/streams/streamService';

/** Who adds and changes the streams the database tests make. */
export const OWNER = { memberId: 'mem_owner', email: 'owner@example.com' };
export const DAY = 86_400_000;
/** The Datadog API key of the streams the database tests make. */
export const DD_KEY = '7f3c2a1be4d94c0f8e6a5b4c3d2e1f00';

/** A brand id of its own. */
export const newBrandId = () => `br_${randomBytes(6).toString('hex')}`;

/**
 * streamService's dependencies on `pool`: a fresh sealing key, every host resolving to a public
 * address, three streams a brand, a month of delivery history; `over` replaces any of them.
 */
export const streamDeps = (pool: Pool, over: Partial<StreamDeps> = {}): StreamDeps => ({
  pool,
  box: new SecretBox(randomBytes(32).toString('base64')),
  resolve: () => Promise.resolve(['93.184.216.34']),
  allowLoopback: false,
  maxPerBrand: 3,
  historyRetentionMs: 30 * DAY,
  ...over,
});

/** A Datadog (EU) stream of `brandId`, added by OWNER. */
export async function datadogStream(deps: StreamDeps, brandId = newBrandId()) {
  const { stream } = await addStream(
    deps,
    {
      brandId,
      kind: 'datadog',
      label: 'Datadog',
      url: '',
      token: DD_KEY,
      datadogSite: 'datadoghq.eu',
      splunkIndex: '',
      actorEmail: OWNER.email,
    },
    OWNER,
  );
  return stream;
}

/** The stream has sent its brand's entries through `position`. */
export async function deliveredThrough(pool: Pool, streamId: string, position: number) {
  await pool.query(`update receivers set stream_delivered_through = $2 where id = $1`, [
    streamId,
    position,
  ]);
}

/** Request entries of `brandId` at positions `seqs`, stored 8 days ago (past their retention). */
export async function oldRequestEntries(pool: Pool, brandId: string, seqs: number[]) {
  for (const seq of seqs)
    await pool.query(
      `insert into audit_entries (brand_id, seq, id, kind, created_at, received_at, entry_json)
       values ($1, $2, $3, 'request', now() - interval '8 days', now() - interval '8 days', '{}')`,
      [brandId, seq, `aud_${randomBytes(8).toString('hex')}`],
    );
}

/**
 * Sets `position` of the stream aside as setAsideRun leaves it (a failed run of that one
 * position, its round of 10 attempts spent, not the stream's current run) and has the stream
 * delivered through `through`; the delivery's id.
 */
export async function setAside(
  pool: Pool,
  stream: { id: string; brand_id: string },
  position: number,
  through: number,
): Promise<string> {
  const batch = await withTransaction(pool, (c) =>
    insertBatch(c, stream, { range: { from: position, through: position } }),
  );
  await pool.query(
    `update deliveries set status = 'failed', attempts = 10, completed_at = now() where id = $1`,
    [batch.id],
  );
  await deliveredThrough(pool, stream.id, through);
  return batch.id;
}

/** The positions of `brandId`'s entries still stored, in order. */
export const entryPositions = async (pool: Pool, brandId: string): Promise<number[]> =>
  (
    await pool.query<{ seq: string }>(
      `select seq from audit_entries where brand_id = $1 order by seq`,
      [brandId],
    )
  ).rows.map((r) => Number(r.seq));

/** The webhooks service on a stack, its AuditStream RPCs as the admin, and a test CA. */
export interface AuditStreamStack {
  stack: Stack;
  ca: TestCa;
  streams: Caller<AuditStreamServiceClient>;
  /** Adds an HTTPS JSON-lines stream of `brand` to `url`, by its owner; the RPC's reply. */
  addHttpsStream(brand: BrandWithKey, label: string, url: string): Promise<AddAuditStreamResponse>;
  close(): Promise<void>;
}

/**
 * A stack with the webhooks service on a topic and consumer group named after `name`, admitting
 * HTTPS destinations of its test CA, with `env` for the webhooks service.
 */
export async function startAuditStreamStack(
  name: string,
  env: Record<string, string>,
  more: Omit<StackOptions, 'webhooks'> = {},
): Promise<AuditStreamStack> {
  const ca = createTestCa();
  let stack: Stack;
  try {
    stack = await startStack({
      ...more,
      webhooks: {
        topic: uniqueTopic(name),
        groupId: uniqueConsumerGroup(name),
        caFile: ca.caFile,
        env,
      },
    });
  } catch (err) {
    ca.remove();
    throw err;
  }
  const client = connectClient(AuditStreamServiceClient, stack.webhooks!.address);
  const streams = createCaller(client, { deadlineMs: 10_000, token: TEST_ADMIN_TOKEN });
  return {
    stack,
    ca,
    streams,
    addHttpsStream: (brand, label, url) =>
      streams('addAuditStream', {
        brand_id: brand.brand.id,
        kind: 'https',
        label,
        url,
        token: '',
        datadog_site: '',
        splunk_index: '',
        actor_email: brand.owner.email,
      }),
    async close() {
      client.close();
      await stack.close();
      ca.remove();
    },
  };
}

/** A refusal a destination answers: the status and its plain text. */
interface Refusal {
  status: number;
  text: string;
}

export interface HttpsDestination {
  /** Its URL without a path. */
  base: string;
  close(): Promise<void>;
}

/**
 * A local HTTPS destination on `tls`: each request's path and body go to `answer`, which
 * refuses it or (undefined) takes it with a 200 `{}`.
 */
export async function httpsDestination(
  tls: { key: Buffer; cert: Buffer },
  answer: (path: string, body: Buffer) => Refusal | undefined,
): Promise<HttpsDestination> {
  const server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const refused = answer(req.url ?? '', Buffer.concat(chunks));
      if (refused)
        res.writeHead(refused.status, { 'content-type': 'text/plain' }).end(refused.text);
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `https://localhost:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
