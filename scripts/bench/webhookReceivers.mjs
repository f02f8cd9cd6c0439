#!/usr/bin/env node
// The benchmark's webhook receivers (S6, S6n, S6c): N HTTPS servers in this one process, on
// 127.0.0.1 with a certificate of the run's throwaway CA. Each answers in its mode: `fast`
// (the default) answers every POST with 204 at once, `hang` reads the request and never
// answers (the socket stays open until the sender gives up, as a receiver hanging to the
// timeout), `fail` answers 500 at once (a receiver down after a bad deploy). Per 2xx delivery
// it keeps the receipt time, the event id, the event's created_at (the business change's
// transaction time) and whether it was a Test, so the bench can compute commit-to-2xx latency
// and deliveries per second. No signature check: the receivers stand in for brand endpoints;
// the webhooks tests verify signatures.
// Usage: node webhookReceivers.mjs <count> <key.pem> <cert.pem>. Logs
// {"msg":"listening","port":<control port>,"receivers":[ports]}; the control port (plain HTTP)
// answers GET /deliveries?from=N with [[receipt ms, event id, created_at ms, receiver, test]]
// from the N-th delivery on (the bench polls it: only what is new), POST
// /mode?from=i&to=j&mode=fast|hang|fail sets receivers [i, j), and GET /counters answers
// {"hanging": requests held open now, "failed": 500s answered so far}.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const [count, keyFile, certFile] = process.argv.slice(2);
const tls = { key: readFileSync(keyFile), cert: readFileSync(certFile) };
const deliveries = [];
const modes = Array.from({ length: Number(count) }, () => 'fast');
const counters = { hanging: 0, failed: 0 };

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const receiverPorts = [];
for (let i = 0; i < Number(count); i++) {
  const server = https.createServer({ ...tls, keepAliveTimeout: 65_000 }, (req, res) => {
    const receivedAt = Date.now();
    const mode = modes[i];
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'hang') {
        counters.hanging++;
        res.on('close', () => counters.hanging--);
        return;
      }
      if (mode === 'fail') {
        counters.failed++;
        res.writeHead(500).end();
        return;
      }
      res.writeHead(204).end();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        deliveries.push([receivedAt, event.id, Date.parse(event.created_at), i, event.test]);
      } catch {
        deliveries.push([receivedAt, undefined, Number.NaN, i, false]);
      }
    });
  });
  receiverPorts.push(await listen(server));
}

const control = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://control');
  res.setHeader('content-type', 'application/json');
  if (req.method === 'POST' && url.pathname === '/mode') {
    const mode = url.searchParams.get('mode');
    if (!['fast', 'hang', 'fail'].includes(mode)) return res.writeHead(400).end('{}');
    const from = Number(url.searchParams.get('from') ?? 0);
    const to = Number(url.searchParams.get('to') ?? modes.length);
    for (let i = from; i < to && i < modes.length; i++) modes[i] = mode;
    return res.end('{}');
  }
  if (url.pathname === '/counters') return res.end(JSON.stringify(counters));
  const from = Number(url.searchParams.get('from') ?? 0);
  res.end(JSON.stringify(deliveries.slice(from)));
});
const port = await listen(control);
console.log(JSON.stringify({ msg: 'listening', port, receivers: receiverPorts }));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
