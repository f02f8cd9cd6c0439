#!/usr/bin/env node
// The benchmark's webhook receivers (S6, S6n, S6c): N HTTPS servers in this one process, on
// 127.0.0.1 with a certificate of the run's throwaway CA. Each answers in its mode: `fast` (the default) answers every POST with 204 at
// once, `slow` answers 204 after SLOW_MS (2 s: a receiver that does its work before answering),
// `hang` reads the request and never answers (the socket stays open until the sender gives up,
// as a receiver hanging to the timeout), `fail` answers 500 at once (a receiver down after a bad
// deploy). Per 2xx delivery
// it keeps the receipt time, the event id, the event's created_at (the business change's
// transaction time) and whether it was a Test, so the bench can compute commit-to-2xx latency
// and deliveries per second. A receiver whose signing secret the bench has set verifies every
// delivery as docs/contract.md#receiver-verification says (the four headers, the timestamp
// within 5 minutes, HMAC-SHA256 over "<timestamp>.<raw body>" compared in constant time, the
// event header matching the body's type) and answers 401 (counted, with the last reason) to
// one that fails: the bench proves both senders, ours and W0 (issue 46), sign as the contract
// says; one without a secret takes any POST.
// Usage: node webhookReceivers.mjs <count> <key.pem> <cert.pem>. Logs
// {"msg":"listening","port":<control port>,"receivers":[ports]}; the control port (plain HTTP)
// answers GET /deliveries?from=N with [[receipt ms, event id, created_at ms, receiver, test]]
// from the N-th delivery on (the bench polls it: only what is new), POST
// /mode?from=i&to=j&mode=fast|slow|hang|fail sets receivers [i, j) (with &every=k, only those
// whose index is k - 1 modulo k), POST /secret?i=N with the
// secret as the body sets receiver N's signing secret, and GET /counters answers
// {"hanging": requests held open now, "failed": 500s answered so far, "verified": deliveries
// whose signature was checked, "rejected": deliveries refused (401), "lastRejection",
// "handshakes": TLS connections accepted so far, "resumed": those of them that resumed a session,
// "loopDelay": {p99, max} ms of this process's event-loop delay since the last /counters: a
// receipt time is taken when the loop reaches the request, so a busy loop here (thousands of
// servers' handshakes, S10) delays every receipt, whatever the sender did}.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const SLOW_MS = 2_000;
const MODES = ['fast', 'slow', 'hang', 'fail'];
const [count, keyFile, certFile] = process.argv.slice(2);
const tls = { key: readFileSync(keyFile), cert: readFileSync(certFile) };
const deliveries = [];
const modes = Array.from({ length: Number(count) }, () => 'fast');
const secrets = Array.from({ length: Number(count) }, () => undefined);
const counters = {
  hanging: 0,
  failed: 0,
  verified: 0,
  rejected: 0,
  lastRejection: undefined,
  handshakes: 0,
  resumed: 0,
};

/** Why a delivery fails verification with `secret`, or undefined when it passes. */
function rejection(secret, headers, raw) {
  const timestamp = headers['x-service-timestamp'];
  const signature = headers['x-service-signature'];
  const type = headers['x-service-event'];
  if (!/^\d+$/.test(timestamp ?? '')) return 'missing or malformed X-Service-Timestamp';
  if (!/^sha256=[0-9a-f]{64}$/.test(signature ?? '')) return 'malformed X-Service-Signature';
  if (!/^[1-9]\d*$/.test(headers['x-service-attempt'] ?? '')) return 'malformed X-Service-Attempt';
  if (headers['content-type'] !== 'application/json') return 'not application/json';
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return 'timestamp outside 5 minutes';
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature.slice(7), 'hex'))) return 'bad signature';
  let body;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'body is not JSON';
  }
  if (body.type !== type) return `X-Service-Event ${type} but the body is ${body.type}`;
  return undefined;
}

// the receipt times' own delay (S10, issue 64): read and reset by each GET /counters
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();

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
      const raw = Buffer.concat(chunks);
      if (secrets[i] !== undefined) {
        const why = rejection(secrets[i], req.headers, raw);
        if (why !== undefined) {
          counters.rejected++;
          counters.lastRejection = `receiver ${i}: ${why}`;
          res.writeHead(401).end();
          return;
        }
        counters.verified++;
      }
      const answer = () => {
        res.writeHead(204).end();
        try {
          const event = JSON.parse(raw.toString('utf8'));
          deliveries.push([receivedAt, event.id, Date.parse(event.created_at), i, event.test]);
        } catch {
          deliveries.push([receivedAt, undefined, Number.NaN, i, false]);
        }
      };
      if (mode === 'slow') setTimeout(answer, SLOW_MS);
      else answer();
    });
  });
  // S10 (issue 64) weighs what first contact with many receivers costs: each new TLS connection
  server.on('secureConnection', (socket) => {
    counters.handshakes++;
    if (socket.isSessionReused()) counters.resumed++;
  });
  receiverPorts.push(await listen(server));
}

const control = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://control');
  res.setHeader('content-type', 'application/json');
  if (req.method === 'POST' && url.pathname === '/mode') {
    const mode = url.searchParams.get('mode');
    if (!MODES.includes(mode)) return res.writeHead(400).end('{}');
    const from = Number(url.searchParams.get('from') ?? 0);
    const to = Number(url.searchParams.get('to') ?? modes.length);
    const every = Number(url.searchParams.get('every') ?? 1);
    for (let i = from; i < to && i < modes.length; i++)
      if (i % every === every - 1) modes[i] = mode;
    return res.end('{}');
  }
  if (req.method === 'POST' && url.pathname === '/secret') {
    const i = Number(url.searchParams.get('i'));
    if (!(i >= 0 && i < secrets.length)) return res.writeHead(400).end('{}');
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      secrets[i] = Buffer.concat(chunks).toString('utf8');
      res.end('{}');
    });
    return;
  }
  if (url.pathname === '/counters') {
    const ms = (ns) => Math.round(ns / 1e5) / 10;
    const delay = { p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) };
    loopDelay.reset();
    return res.end(JSON.stringify({ ...counters, loopDelay: delay }));
  }
  const from = Number(url.searchParams.get('from') ?? 0);
  res.end(JSON.stringify(deliveries.slice(from)));
});
const port = await listen(control);
console.log(JSON.stringify({ msg: 'listening', port, receivers: receiverPorts }));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
