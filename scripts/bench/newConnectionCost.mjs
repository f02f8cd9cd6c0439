#!/usr/bin/env node
// What a new TLS connection costs the webhooks worker (issue 64, S10's CPU): client CPU
// (user + system, every thread of this process) per connection or per request, the receiver
// in a process of its own on 127.0.0.1 with a certificate of a throwaway CA (P-256, as the
// bench's receivers). Built code (npm run build): the worker's own ReceiverConnections.
//
//   node scripts/bench/newConnectionCost.mjs        # N=1000 a mode, ROUNDS=3, medians printed
//
// Modes, in turn within each round:
// - tcp: a TCP connection opened and closed, nothing sent (the kernel's and node's floor);
// - tls full / tls resumed: tls.connect and close, with no session or the last one offered;
// - tls full, leaf only: a full handshake whose name check reads the receiver's certificate
//   alone, as the worker's do (identityFromLeaf.ts), not its chain built as objects;
// - tls resumed, no cert: the same with the session as the worker keeps it, the receiver's
//   certificate left out (sessionWithoutCertificate.ts);
// - kept: one POST (1.2 KB, answered 204) over a receiver's kept connection, leased and given
//   back as the worker does: what most deliveries cost;
// - new, resumed: the same POST over a new connection of the worker's whose TLS session is
//   resumed: two receivers take turns in one kept place, so each attempt closes the other's
//   connection and opens its own (S10's busy receivers beyond DELIVERY_KEPT_RECEIVERS);
// - first contact: the same POST to a receiver the worker never delivered to (a full handshake
//   over a connection of its own, closed after the answer): most of S10's new connections.
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { percentile } from './lib/load.mjs';
import { makeTestCa } from './lib/testCa.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const N = Number(process.env.N ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WARMUP = 50;

if (process.argv[2] === 'serve') serve(process.argv[3]);
else await main();

/**
 * The receiver: two HTTPS ports (two origins), 204 to every request, keep-alive 65 s. It
 * counts the TLS connections it accepts and how many resumed a session, and tells on asking.
 */
function serve(dir) {
  const tally = { connections: 0, resumed: 0 };
  process.on('message', () => process.send({ tally }));
  const options = {
    key: readFileSync(path.join(dir, 'localhost-key.pem')),
    cert: readFileSync(path.join(dir, 'localhost.pem')),
  };
  const ports = [];
  for (let i = 0; i < 2; i++) {
    const server = https.createServer(options, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.keepAliveTimeout = 65_000;
    server.on('secureConnection', (socket) => {
      tally.connections += 1;
      if (socket.isSessionReused()) tally.resumed += 1;
    });
    server.listen(0, '127.0.0.1', () => {
      ports.push(server.address().port);
      if (ports.length === 2) process.send({ ports });
    });
  }
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-conn-cost-'));
  makeTestCa(dir);
  const server = fork(fileURLToPath(import.meta.url), ['serve', dir]);
  try {
    const { ports } = await new Promise((resolve) => server.once('message', resolve));
    const modes = makeModes(ports, readFileSync(path.join(dir, 'ca.pem'), 'utf8'));
    const tally = () =>
      new Promise((resolve) => {
        server.once('message', (m) => resolve(m.tally));
        server.send('tally');
      });
    const figures = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
    const handshakes = Object.fromEntries(Object.keys(modes).map((m) => [m, [0, 0]]));
    for (let r = 1; r <= ROUNDS; r++)
      for (const [name, once] of Object.entries(modes)) {
        for (let i = 0; i < WARMUP; i++) await once();
        const before = await tally();
        const start = process.cpuUsage();
        for (let i = 0; i < N; i++) await once();
        const used = process.cpuUsage(start);
        const after = await tally();
        figures[name].push((used.user + used.system) / 1000 / N);
        handshakes[name][0] += after.connections - before.connections;
        handshakes[name][1] += after.resumed - before.resumed;
      }
    console.log(
      `client CPU, ms each (median of ${ROUNDS} rounds of ${N}; each round's in brackets):`,
    );
    for (const [name, values] of Object.entries(figures))
      console.log(
        `${name.padEnd(20)} ${percentile(values, 50).toFixed(3)}  (${values.map((v) => v.toFixed(3)).join(', ')})` +
          `  TLS handshakes ${handshakes[name][0]} (${handshakes[name][1]} resumed)`,
      );
    const extra = percentile(figures['new, resumed'], 50) - percentile(figures.kept, 50);
    console.log(
      `a new connection with its session resumed: ${extra.toFixed(3)} ms more than a kept one`,
    );
  } finally {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

function makeModes(ports, caPem) {
  const require = createRequire(path.join(root, 'services/webhooks/package.json'));
  const { ReceiverConnections } = require(
    path.join(root, 'services/webhooks/dist/send/receiverConnections.js'),
  );
  const { sessionWithoutCertificate } = require(
    path.join(root, 'services/webhooks/dist/send/sessionWithoutCertificate.js'),
  );
  const { checkIdentityOnLeaf } = require(
    path.join(root, 'services/webhooks/dist/send/identityFromLeaf.js'),
  );
  // the worker's options (sender.ts): one context with the extra CA, a 4 s keep-alive fallback
  const secureContext = tls.createSecureContext({ ca: [...tls.rootCertificates, caPem] });
  const options = {
    connect: { timeout: 5_000, secureContext },
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    keepAliveTimeout: 4_000,
  };
  const body = JSON.stringify({
    id: 'evt_0',
    type: 'submission.approved',
    data: 'x'.repeat(1_100),
  });
  const post = async (connections, url) => {
    const lease = connections.lease(url);
    try {
      const res = await lease.dispatcher.request({
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await res.body.text();
    } finally {
      lease.release();
    }
  };
  const [a, b] = ports.map((port) => new URL(`https://127.0.0.1:${port}/hooks/0`));
  const kept = new ReceiverConnections(options, 1_000);
  // one kept place for two receivers: each attempt lets the other go (and its connection close)
  const turns = new ReceiverConnections(options, 1);
  let turn = 0;
  let session;
  /**
   * `offer`: the session to offer, from the last one the receiver issued (or none); `prepare`:
   * what is done to the socket before its handshake ends.
   */
  const tlsOnce = (offer, prepare = () => undefined) =>
    new Promise((resolve, reject) => {
      const socket = tls.connect(
        {
          host: '127.0.0.1',
          port: ports[0],
          secureContext,
          session: session && offer(session),
        },
        () => socket.end(),
      );
      prepare(socket);
      socket.on('session', (s) => (session = s));
      socket.on('error', reject).on('close', resolve).resume();
    });
  return {
    tcp: () =>
      new Promise((resolve, reject) => {
        const socket = net.connect(ports[0], '127.0.0.1', () => socket.destroy());
        socket.on('error', reject).on('close', resolve);
      }),
    'tls full': () => tlsOnce(() => undefined),
    'tls full, leaf only': () => tlsOnce(() => undefined, checkIdentityOnLeaf),
    'tls resumed': () => tlsOnce((s) => s),
    'tls resumed, no cert': () => tlsOnce(sessionWithoutCertificate),
    kept: () => post(kept, a),
    'new, resumed': () => post(turns, turn++ % 2 === 0 ? a : b),
    'first contact': async () => {
      const fresh = new ReceiverConnections(options, 1);
      await post(fresh, a);
      await fresh.destroy();
    },
  };
}
