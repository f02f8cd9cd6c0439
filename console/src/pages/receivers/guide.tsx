import type { Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { LocalTls, SERVE_HTTPS } from './serveHttps';

/**
 * A value the owner typed, as a JavaScript string literal: JSON-encoded, so no quote, newline
 * or line separator in it can end the string (JSON is a subset of JavaScript since ES2019).
 * User values never go into comments or templates of the example, where nothing escapes them.
 */
const js = (value: unknown): string => JSON.stringify(value);

/**
 * How to verify this receiver's deliveries (docs/contract.md#receiver-verification) and relay them to a team chat
 * (docs/contract.md#channel-relay), with the receiver's own URL and event types filled in.
 */
export function ReceiverGuide(props: { receiver: Receiver }) {
  const { receiver } = props;
  const events = receiver.events.map((e) => EVENT_TYPES.fromProto(e) ?? 'unknown');
  const path = safePath(receiver.url);
  const code = `import express from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

// The receiver this example serves, as registered in the Developers area.
const RECEIVER_LABEL = ${js(receiver.label)};
const RECEIVER_URL = ${js(receiver.url)};
const PATH = ${js(path)}; // RECEIVER_URL's path, compared exactly (no route pattern)
// The signing secret shown once when this receiver was added (whsec_...).
const SECRET = process.env.BRAND_RECORDS_SIGNING_SECRET;
if (!SECRET) throw new Error('Set BRAND_RECORDS_SIGNING_SECRET to the signing secret.');
const ACCEPTED = new Set(${js(events)});
const seen = new Set(); // use a database table in production

const app = express();
// 1. Read the raw body before parsing it.
app.use(express.raw({ type: 'application/json' }));
app.use((req, res, next) => {
  if (req.method !== 'POST' || req.path !== PATH) return next();
  const type = req.get('X-Service-Event');
  const timestamp = req.get('X-Service-Timestamp');
  const signature = req.get('X-Service-Signature') ?? '';
  // 4. Reject missing or malformed headers (400), and timestamps more than 5 minutes away
  //    (401: not fresh, like a signature that does not match).
  if (!type || !/^\\d+$/.test(timestamp ?? '') || !/^sha256=[0-9a-f]{64}$/.test(signature)) {
    return res.status(400).end();
  }
  // A body that is not JSON was not read raw: no delivery.
  if (!Buffer.isBuffer(req.body)) return res.status(400).end();
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return res.status(401).end();
  // 2. HMAC-SHA256 with the secret over "<timestamp>.<raw body>".
  const expected = createHmac('sha256', SECRET).update(\`\${timestamp}.\`).update(req.body).digest();
  // 3. Compare in constant time.
  if (!timingSafeEqual(expected, Buffer.from(signature.slice(7), 'hex'))) {
    return res.status(401).end();
  }
  // 5. Accept only the configured event types: the body's, which is signed, and the header
  //    must say the same (the header is not signed).
  let event;
  try {
    event = JSON.parse(req.body.toString('utf8'));
  } catch {
    return res.status(400).end();
  }
  if (event.type !== type) return res.status(400).end();
  if (!ACCEPTED.has(type)) return res.status(422).end();
  // 6. Process idempotently: deduplicate on the event and record ids, not X-Service-Attempt.
  const key = \`\${event.id}:\${event.data.object.id}\`;
  if (!seen.has(key)) {
    seen.add(key);
    // ... your work (event.test is true for deliveries of the Test button)
  }
  res.status(204).end();
});

${SERVE_HTTPS}
server.listen(port, () =>
  console.log('Receiving', RECEIVER_LABEL, 'deliveries for', RECEIVER_URL, 'over', SCHEME),
);`;
  return (
    <section aria-labelledby="guide">
      <h2 id="guide">Guide: verifying this receiver's deliveries</h2>
      <p>
        Each delivery is a POST of JSON to <code>{receiver.url}</code> with the headers{' '}
        <code>X-Service-Event</code> (one of {events.join(', ')}), <code>X-Service-Timestamp</code>{' '}
        (Unix seconds), <code>X-Service-Signature</code> (<code>sha256=&lt;hex&gt;</code>) and{' '}
        <code>X-Service-Attempt</code>. Answer any 2xx within 30 seconds; anything else is retried
        for about three days. A minimal Node.js receiver:
      </p>
      <pre class="code" tabIndex={0} role="region" aria-label="The example receiver">
        <code>{code}</code>
      </pre>
      <LocalTls />
      <p>
        Refusals: 400 for a request that is not a well-formed delivery, 401 for one that is not
        authentic or not fresh (the signature, or a timestamp more than 5 minutes away), 422 for an
        event type you did not select. From TypeScript, <code>verifyNodeWebhook</code> of{' '}
        <code>@brand-records/client/webhooks</code> does steps 2 to 5 for you, with the same
        statuses.
      </p>
      <h2>Posting events to a team chat</h2>
      <p>
        Do not register a team-chat incoming-webhook URL here: the service sends its own signed
        JSON, not a chat message, and refuses those URLs. Run a small relay instead: register the
        relay's HTTPS URL as a receiver, verify each delivery as above, turn it into a short message
        with the event name and a dashboard link (never creator details, secrets or a full payment
        record), and post that to the chat webhook, which stays in the relay's own configuration.
        The repository's <code>examples/relay</code> is such a relay.
      </p>
    </section>
  );
}

/** The URL's path for the example route; "/" when it cannot be read. */
export function safePath(url: string): string {
  try {
    return new URL(url).pathname || '/';
  } catch {
    return '/';
  }
}
