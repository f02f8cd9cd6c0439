#!/usr/bin/env node
// What an idle kept connection holds in the webhooks worker (issue 64, S10's RSS): RSS, V8 heap
// and external memory per connection, N idle connections to a receiver in a process of its own
// on 127.0.0.1 (P-256 certificate of a throwaway CA, as the bench's receivers; keep-alive 65 s).
// Each mode runs in a fresh process of its own, so one mode's freed memory is not another's.
// Built code (npm run build): the worker's own ReceiverConnections.
//
//   node scripts/bench/idleConnectionMemory.mjs     # N=1000 connections a mode, ROUNDS=3, medians
//
// Modes:
// - tcp: a TCP connection, one request and its answer (the kernel's and node's floor);
// - tls: tls.connect, one request and its answer, node's defaults (TLS 1.3, 16 KiB records);
// - tls 1.2: the same, TLS 1.2 at most;
// - tls 4 KiB records: the same with setMaxSendFragment(4096), as the worker sends;
// - worker: the worker's kept connections (ReceiverConnections, undici Clients): N attempts to
//   one receiver, each holding its connection while the next opens another, then all given back
//   and kept;
// - worker at once: the same N attempts in flight together, as a burst opens them (N handshakes
//   at once: what stays of their buffers is the difference to `worker`).
// MODES=<comma-separated> runs some of them; the children inherit the environment, so an
// allocator can be tried (LD_PRELOAD, MALLOC_ARENA_MAX).
// What it answers: whether the cost of a kept receiver is the worker's (undici, its own state) or
// node's TLS socket itself, which no setting of ours reaches (DELIVERY_KEPT_RECEIVERS bounds it).
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
const MODES = (
  process.env.MODES ?? 'tcp,tls,tls 1.2,tls 4 KiB records,worker,worker at once'
).split(',');
const REQUEST = 'POST /hooks/0 HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 2\r\n\r\n{}';

if (process.argv[2] === 'serve') serve(process.argv[3]);
else if (process.argv[2] === 'hold') await hold(process.argv[3], Number(process.argv[4]));
else await main();

/** The receiver: one HTTPS port and one plain TCP port, 204 to every request, keep-alive 65 s. */
function serve(dir) {
  const server = https.createServer(
    {
      key: readFileSync(path.join(dir, 'localhost-key.pem')),
      cert: readFileSync(path.join(dir, 'localhost.pem')),
    },
    (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    },
  );
  server.keepAliveTimeout = 65_000;
  server.maxConnections = N * 2;
  const plain = net.createServer((socket) => {
    socket.on('data', () => socket.write('HTTP/1.1 204 No Content\r\n\r\n'));
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1', () =>
    plain.listen(0, '127.0.0.1', () =>
      process.send({ tlsPort: server.address().port, tcpPort: plain.address().port }),
    ),
  );
}

/** This process's memory after a full GC, in KB. */
function memory() {
  global.gc();
  const m = process.memoryUsage();
  return { rss: m.rss / 1024, heap: m.heapUsed / 1024, external: m.external / 1024 };
}

/** One mode in a process of its own: opens N idle connections, answers memory before and after. */
async function hold(mode, tlsPort) {
  const { tcpPort, caPem } = JSON.parse(process.env.IDLE_MEMORY_TARGET);
  const secureContext = tls.createSecureContext({ ca: [...tls.rootCertificates, caPem] });
  const kept = [];
  // one request and its answer over a new socket, which then stays open and idle
  const rawOnce = (connect) =>
    new Promise((resolve, reject) => {
      const socket = connect(() => socket.write(REQUEST));
      socket.once('data', resolve);
      socket.on('error', reject);
      kept.push(socket);
    });
  const tlsOnce = (extra, prepare = () => undefined) =>
    rawOnce((onConnect) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port: tlsPort, servername: 'localhost', secureContext, ...extra },
        onConnect,
      );
      prepare(socket);
      return socket;
    });
  let open;
  if (mode === 'worker' || mode === 'worker at once') {
    const require = createRequire(path.join(root, 'services/webhooks/package.json'));
    const { ReceiverConnections } = require(
      path.join(root, 'services/webhooks/dist/send/receiverConnections.js'),
    );
    // the worker's options (sender.ts)
    const connections = new ReceiverConnections(
      {
        connect: { timeout: 5_000, secureContext },
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
        keepAliveTimeout: 4_000,
      },
      1_000,
    );
    kept.push(connections);
    const url = new URL(`https://localhost:${tlsPort}/hooks/0`);
    // the receiver is kept from its second attempt on: the first goes over a connection of its own
    await post(connections.lease(url), url);
    // one at a time, as the other modes (N handshakes at once would leave a higher water mark):
    // each attempt holds its connection, so the next one opens another
    open = async () => {
      const leases = [];
      if (mode === 'worker at once') {
        for (let i = 0; i < N; i++) leases.push(connections.lease(url));
        await Promise.all(leases.map((lease) => post(lease, url, false)));
      } else
        for (let i = 0; i < N; i++) {
          leases.push(connections.lease(url));
          await post(leases[i], url, false);
        }
      for (const lease of leases) lease.release();
      if (connections.connectionCount < N)
        throw new Error(`${connections.connectionCount} connections kept, not ${N}`);
    };
  } else {
    const once = {
      tcp: () => rawOnce((c) => net.connect(tcpPort, '127.0.0.1', c)),
      tls: () => tlsOnce({}),
      'tls 1.2': () => tlsOnce({ maxVersion: 'TLSv1.2' }),
      'tls 4 KiB records': () => tlsOnce({}, (s) => s.setMaxSendFragment(4_096)),
    }[mode];
    open = async () => {
      for (let i = 0; i < N; i++) await once();
    };
  }
  const before = memory();
  await open();
  await new Promise((r) => setTimeout(r, 300));
  const after = memory();
  process.send(Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - before[k]) / N])));
}

/** One attempt's POST over `lease`, its answer read; the lease given back unless told not to. */
async function post(lease, url, release = true) {
  try {
    const res = await lease.dispatcher.request({
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await res.body.text();
  } finally {
    if (release) lease.release();
  }
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-idle-memory-'));
  makeTestCa(dir);
  const server = fork(fileURLToPath(import.meta.url), ['serve', dir]);
  try {
    const { tlsPort, tcpPort } = await new Promise((resolve) => server.once('message', resolve));
    const env = {
      ...process.env,
      IDLE_MEMORY_TARGET: JSON.stringify({
        tcpPort,
        caPem: readFileSync(path.join(dir, 'ca.pem'), 'utf8'),
      }),
    };
    const figures = Object.fromEntries(MODES.map((m) => [m, []]));
    for (let r = 1; r <= ROUNDS; r++)
      for (const mode of MODES) {
        const child = fork(fileURLToPath(import.meta.url), ['hold', mode, String(tlsPort)], {
          env,
          execArgv: ['--expose-gc'],
        });
        const [figure] = await Promise.race([
          new Promise((resolve) => child.once('message', (m) => resolve([m]))),
          new Promise((_, reject) =>
            child.once('exit', (code) => reject(new Error(`${mode} exited with ${code}`))),
          ),
        ]);
        child.kill();
        figures[mode].push(figure);
      }
    console.log(
      `KB an idle connection (median of ${ROUNDS} rounds of ${N} connections; each round's RSS in brackets):`,
    );
    console.log(`${'mode'.padEnd(20)} ${'RSS'.padStart(6)} ${'heap'.padStart(6)} external`);
    for (const [mode, rounds] of Object.entries(figures)) {
      const median = (k) =>
        percentile(
          rounds.map((f) => f[k]),
          50,
        ).toFixed(1);
      console.log(
        `${mode.padEnd(20)} ${median('rss').padStart(6)} ${median('heap').padStart(6)} ${median('external').padStart(8)}` +
          `  (${rounds.map((f) => f.rss.toFixed(1)).join(', ')})`,
      );
    }
  } finally {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
