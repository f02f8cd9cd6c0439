import type { Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { safePath } from './guide';
import { LocalTls, SERVE_HTTPS } from './serveHttps';

/**
 * How a receiver holds both secrets while a rotation is pending, with the official client
 * (`verifyWebhook` and its handlers accept several secrets: any one may match). Values the
 * brand typed (the URL's path, the event types) go into the code JSON-encoded, so they stay
 * string literals whatever they hold.
 */
export function RotationGuide(props: { receiver: Receiver }) {
  const { receiver } = props;
  const events = receiver.events.map((e) => EVENT_TYPES.fromProto(e) ?? 'unknown');
  const code = `import express from 'express';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { webhookExpressHandler } from '@brand-records/client/webhooks';

const PATH = ${JSON.stringify(safePath(receiver.url))}; // compared exactly (no route pattern)
// While a rotation is pending: the new secret and the current one. A delivery is genuine
// when either signature matches. After the switch the service destroys the old secret:
// remove BRAND_RECORDS_SIGNING_SECRET_OLD then.
const secrets = [
  process.env.BRAND_RECORDS_SIGNING_SECRET,
  process.env.BRAND_RECORDS_SIGNING_SECRET_OLD,
].filter((s) => typeof s === 'string' && s !== '');
const seen = new Set(); // use a database table in production
const handle = webhookExpressHandler({
  secret: secrets,
  eventTypes: ${JSON.stringify(events)},
  onEvent: (event) => {
    // Deduplicate on the event and record ids: retries and recovery send an event again.
    const key = event.id + ':' + event.data.object.id;
    if (seen.has(key)) return;
    seen.add(key);
    // ... your work
  },
});

const app = express();
app.use(express.raw({ type: 'application/json' })); // the raw body, before any parsing
app.use((req, res, next) =>
  req.method === 'POST' && req.path === PATH ? handle(req, res).catch(next) : next(),
);
${SERVE_HTTPS}
server.listen(port, () =>
  console.log('Receiving with', secrets.length, 'secret(s) on', port, 'over', SCHEME),
);`;
  return (
    <section aria-labelledby="rotation-guide">
      <h2 id="rotation-guide">Guide: rotating the signing secret without losing a delivery</h2>
      <p>
        The signature header carries one digest, made with the secret in force. So during a rotation
        your receiver accepts both: put the new secret in <code>BRAND_RECORDS_SIGNING_SECRET</code>{' '}
        and keep the current one in <code>BRAND_RECORDS_SIGNING_SECRET_OLD</code>, deploy, send a
        Test signed with the new secret, then switch. Every delivery after the switch, retries of
        events first sent before it included, is signed with the new secret. Once switched, remove
        the old one.
      </p>
      <pre
        class="code"
        tabIndex={0}
        role="region"
        aria-label="The example receiver holding both secrets"
      >
        <code>{code}</code>
      </pre>
      <LocalTls />
      <p class="hint">
        <code>verifyWebhook</code>, <code>verifyNodeWebhook</code> and{' '}
        <code>verifyWebhookRequest</code> take the same list. The repository's{' '}
        <code>examples/receiver</code> reads several secrets from its configuration the same way.
      </p>
    </section>
  );
}
