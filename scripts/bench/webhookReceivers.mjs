#!/usr/bin/env node
// The benchmark's webhook receivers (S6): N HTTPS servers in this one process, on
// 127.0.0.1 with a certificate of the run's throwaway CA, each answering every POST with
// 204 at once. Per delivery it keeps the receipt time, the event id and the event's
// created_at (the business change's transaction time), so the bench can compute
// commit-to-2xx latency and deliveries per second. No signature check: the receivers
// stand in for fast brand endpoints; the webhooks tests verify signatures.
// Usage: node webhookReceivers.mjs <count> <key.pem> <cert.pem>. Logs
// {"msg":"listening","port":<control port>,"receivers":[ports]}; the control port
// (plain HTTP) answers GET /deliveries?from=N with [[receipt ms, event id, created_at ms,
// receiver]] from the N-th delivery on (the bench polls it: only what is new, not all of it).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const [count, keyFile, certFile] = process.argv.slice(2);
const tls = { key: readFileSync(keyFile), cert: readFileSync(certFile) };
const deliveries = [];

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const receiverPorts = [];
for (let i = 0; i < Number(count); i++) {
  const server = https.createServer({ ...tls, keepAliveTimeout: 65_000 }, (req, res) => {
    const receivedAt = Date.now();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        deliveries.push([receivedAt, event.id, Date.parse(event.created_at), i]);
      } catch {
        deliveries.push([receivedAt, undefined, Number.NaN, i]);
      }
    });
  });
  receiverPorts.push(await listen(server));
}

const control = http.createServer((req, res) => {
  const from = Number(new URL(req.url, 'http://control').searchParams.get('from') ?? 0);
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(deliveries.slice(from)));
});
const port = await listen(control);
console.log(JSON.stringify({ msg: 'listening', port, receivers: receiverPorts }));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
