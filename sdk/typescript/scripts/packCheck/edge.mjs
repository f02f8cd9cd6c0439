// Runs the webhooks entry point as an edge runtime offers it: its CommonJS build is loaded
// into a fresh vm context holding only web-platform globals (Web Crypto, TextEncoder and
// TextDecoder, Headers, Request, Response, URL, timers): no Buffer, no process, no require of
// anything but its own files. A delivery is then verified there, and a forged one refused, and
// an audit stream's run verified.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('@brand-records/client/package.json'));
const context = vm.createContext({
  crypto: globalThis.crypto,
  TextEncoder,
  TextDecoder,
  Headers,
  Request,
  Response,
  URL,
  setTimeout,
  clearTimeout,
});

const modules = new Map();
/** A CommonJS loader that refuses anything outside the package's own files. */
function load(file) {
  if (modules.has(file)) return modules.get(file).exports;
  const module = { exports: {} };
  modules.set(file, module);
  const wrapper = vm.runInContext(
    `(function (exports, require, module) {${readFileSync(file, 'utf8')}\n})`,
    context,
    {
      filename: file,
    },
  );
  const localRequire = (specifier) => {
    assert.ok(
      specifier.startsWith('.'),
      `${file} requires ${specifier}, which an edge runtime may not have`,
    );
    return load(join(dirname(file), specifier));
  };
  wrapper(module.exports, localRequire, module);
  return module.exports;
}

context.webhooks = load(join(root, 'dist', 'cjs', 'webhooks', 'index.js'));
const run = vm.runInContext(
  `(async () => {
    const { signWebhookForTest, webhookFetchHandler } = webhooks;
    const rawBody = JSON.stringify({
      id: 'evt_edge', type: 'submission.rejected', created_at: '2026-11-22T10:00:00.000000Z',
      test: false, brand_id: 'br_1',
      data: { object: { resource: 'submissions', id: 'sub_1', status: 'rejected' } },
    });
    const received = [];
    const handle = webhookFetchHandler({
      secret: 'whsec_edge',
      eventTypes: ['submission.rejected'],
      deduplicate: webhooks.memoryDeduplication(),
      onEvent: (event) => { received.push(event.id); },
    });
    const headers = await signWebhookForTest({ secret: 'whsec_edge', rawBody, eventType: 'submission.rejected' });
    const post = (body) => handle(new Request('https://edge.example/hooks', { method: 'POST', body, headers }));
    const ok = await post(rawBody);
    const repeated = await post(rawBody);
    const forged = await post(rawBody.replace('"rejected"}', '"approved"}'));
    // an audit stream's run: the signing headers without X-Service-Event, JSON lines
    const lines = JSON.stringify({
      position: 1, id: 'act_1', kind: 'activity', brand_id: 'br_1',
      created_at: '2026-11-22T10:00:00.000000Z', action: 'key.created', test: false,
    }) + '\\n';
    const { 'x-service-event': _event, ...streamHeaders } = await signWebhookForTest({ secret: 'whsec_stream', rawBody: lines, eventType: 'audit.run' });
    const stream = await webhooks.verifyAuditStreamDelivery({ rawBody: lines, headers: streamHeaders, secret: 'whsec_stream' });
    return { ok: ok.status, repeated: await repeated.json(), forged: forged.status, received, streamPositions: stream.entries.map((e) => e.position), bufferSeen: typeof Buffer, processSeen: typeof process };
  })()`,
  context,
);
// Compared as JSON: the result was made in the other realm.
assert.deepEqual(JSON.parse(JSON.stringify(await run)), {
  ok: 200,
  repeated: { received: true, duplicate: true },
  forged: 401,
  received: ['evt_edge'],
  streamPositions: [1],
  bufferSeen: 'undefined',
  processSeen: 'undefined',
});
