// Runs the installed package as an ES module: both entry points, a page walk over a stub
// fetch, and a webhook signed and verified with the package alone.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BrandRecords,
  InvalidKeyError,
  VERSION,
  WebhookVerificationError as FromMain,
} from '@brand-records/client';
import {
  signWebhookForTest,
  verifyWebhook,
  WebhookVerificationError,
} from '@brand-records/client/webhooks';
import { CheckpointLockedError, openCheckpointFile } from '@brand-records/client/checkpoint-file';

const pages = [
  { resource: 'links', count: 2, data: [{ id: 'lnk_1' }, { id: 'lnk_2' }], next_cursor: 'c1' },
  { resource: 'links', count: 1, data: [{ id: 'lnk_3' }] },
];
const client = new BrandRecords({
  apiKey: 'bk_live_packcheck',
  baseUrl: 'https://api.example.test',
  fetch: async () => new Response(JSON.stringify(pages.shift()), { status: 200 }),
});
const ids = [];
for await (const link of client.links.all({ limit: 2 })) ids.push(link.id);
assert.deepEqual(ids, ['lnk_1', 'lnk_2', 'lnk_3']);

const refusing = new BrandRecords({
  apiKey: 'bk_live_packcheck',
  baseUrl: 'https://api.example.test',
  fetch: async () =>
    new Response(
      JSON.stringify({ error: { code: 'invalid_key', message: 'no', request_id: 'r1' } }),
      { status: 401 },
    ),
});
await assert.rejects(refusing.payouts.list(), InvalidKeyError);

const rawBody = JSON.stringify({
  id: 'evt_1',
  type: 'payout.paid',
  created_at: '2026-11-22T10:00:00.000000Z',
  test: false,
  brand_id: 'br_1',
  data: { object: { resource: 'payouts', id: 'po_1', status: 'paid' } },
});
const headers = await signWebhookForTest({
  secret: 'whsec_pack',
  rawBody,
  eventType: 'payout.paid',
});
const eventTypes = ['payout.paid'];
const event = await verifyWebhook({ rawBody, headers, secret: 'whsec_pack', eventTypes });
assert.equal(event.data.object.id, 'po_1');
await assert.rejects(
  verifyWebhook({ rawBody, headers, secret: 'whsec_other', eventTypes }),
  WebhookVerificationError,
);

// The Node-only entry point: a checkpoint file, locked for one follower.
const dir = await mkdtemp(join(tmpdir(), 'pack-check-'));
const checkpoint = await openCheckpointFile(join(dir, 'events.checkpoint'));
await checkpoint.save({ after: 3, handled: [] });
await assert.rejects(openCheckpointFile(join(dir, 'events.checkpoint')), CheckpointLockedError);
await checkpoint.close();
assert.deepEqual((await openCheckpointFile(join(dir, 'events.checkpoint'))).from, {
  after: 3,
  handled: [],
});
await rm(dir, { recursive: true, force: true });
assert.equal(FromMain, WebhookVerificationError, 'one class behind both entry points');
assert.match(VERSION, /^\d+\.\d+\.\d+/);
