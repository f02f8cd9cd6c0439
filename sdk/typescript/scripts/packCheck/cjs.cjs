// Runs the installed package as CommonJS: the same checks as esm.mjs through require().
const assert = require('node:assert/strict');
const { BrandRecords, RateLimitedError } = require('@brand-records/client');
const { signWebhookForTest, verifyWebhookDelivery } = require('@brand-records/client/webhooks');
const { openCheckpointFile } = require('@brand-records/client/checkpoint-file');

async function main() {
  let calls = 0;
  const client = new BrandRecords({
    apiKey: 'bk_live_packcheck',
    baseUrl: 'https://api.example.test',
    maxRetries: 0,
    fetch: async () => {
      calls++;
      return new Response(
        JSON.stringify({ error: { code: 'rate_limited', message: 'wait', request_id: 'r' } }),
        {
          status: 429,
          headers: { 'retry-after': '9' },
        },
      );
    },
  });
  const error = await client.deposits.list().catch((e) => e);
  assert.ok(error instanceof RateLimitedError);
  assert.equal(error.retryAfterSeconds, 9);
  assert.equal(calls, 1);

  const rawBody = Buffer.from(
    JSON.stringify({
      id: 'evt_2',
      type: 'campaign.settled',
      created_at: '2026-11-22T10:00:00.000000Z',
      test: true,
      brand_id: 'br_1',
      data: { object: { resource: 'campaigns', id: 'cmp_1', status: 'settled' } },
    }),
  );
  const headers = await signWebhookForTest({
    secret: 'whsec_pack',
    rawBody,
    eventType: 'campaign.settled',
    attempt: 3,
  });
  const verified = await verifyWebhookDelivery({
    rawBody,
    headers,
    secret: 'whsec_pack',
    eventTypes: ['campaign.settled'],
  });
  assert.equal(verified.attempt, 3);
  assert.equal(verified.event.type, 'campaign.settled');

  const dir = require('node:fs').mkdtempSync(
    require('node:path').join(require('node:os').tmpdir(), 'pack-check-'),
  );
  const checkpoint = await openCheckpointFile(require('node:path').join(dir, 'events.checkpoint'));
  assert.deepEqual(checkpoint.from, { after: 0, handled: [] });
  await checkpoint.close();
  require('node:fs').rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
