/**
 * The end of both receiver examples (the guide and the rotation guide): the receiver's URL is
 * HTTPS, so the example serves HTTPS itself with node:https and a certificate, or plain HTTP
 * only when told a proxy in front ends TLS. It defines `server`, `port` and `SCHEME`.
 * Issue 35: the examples used to listen on plain HTTP while the URL they serve is HTTPS.
 */
export const SERVE_HTTPS = `// Serve HTTPS, as the receiver's URL says: TLS_CERT_FILE and TLS_KEY_FILE name your
// certificate and its key (PEM). On the local stack (npm run up) use the localhost
// certificate of its test CA: .local/ca/localhost.pem and .local/ca/localhost-key.pem.
// TLS_BEHIND_PROXY=true serves plain HTTP instead, for a proxy in front that ends TLS.
const port = Number(process.env.PORT ?? 9443);
const behindProxy = process.env.TLS_BEHIND_PROXY === 'true';
if (!behindProxy && !(process.env.TLS_CERT_FILE && process.env.TLS_KEY_FILE)) {
  throw new Error('Set TLS_CERT_FILE and TLS_KEY_FILE (or TLS_BEHIND_PROXY=true).');
}
const server = behindProxy
  ? app
  : createServer(
      { cert: readFileSync(process.env.TLS_CERT_FILE), key: readFileSync(process.env.TLS_KEY_FILE) },
      app,
    );
const SCHEME = behindProxy ? 'plain HTTP behind a TLS proxy' : 'HTTPS';`;

/** How to serve the example over TLS on the local stack, with the test CA `npm run up` made. */
export function LocalTls() {
  return (
    <p>
      The receiver's URL is HTTPS, so the example serves HTTPS: give it your certificate and key in{' '}
      <code>TLS_CERT_FILE</code> and <code>TLS_KEY_FILE</code> (or set{' '}
      <code>TLS_BEHIND_PROXY=true</code> when a proxy in front of it ends TLS). On the local stack,{' '}
      <code>npm run up</code> made a test CA under <code>.local/ca/</code> that its webhooks service
      trusts, and a certificate for <code>localhost</code>, <code>127.0.0.1</code> and{' '}
      <code>::1</code> signed by it: register <code>https://localhost:9443/…</code> and start the
      example with{' '}
      <code>TLS_CERT_FILE=.local/ca/localhost.pem TLS_KEY_FILE=.local/ca/localhost-key.pem</code>.
      Never use that CA outside your machine.
    </p>
  );
}
