// The page hop alone (issue 25): one process asking another for pages, as the gateway asks
// records, with nothing else on either side. A small PageCall out, a 17 KB page back (the
// walk's mean page), `IN_FLIGHT` pages in flight, for `SECONDS` after a 2 s warm-up; prints
// pages a second and CPU per page of each side (user + system, every thread).
//
//   node scripts/bench/pageHop.mjs [mode ...]     modes: grpc64k grpc4m tcp (default: all)
//
// - grpc64k: StreamRecordsPages over grpc-js on two long-lived streams, HTTP/2's default
//   64 KiB receive window (the system before the window was raised);
// - grpc4m: the same with the system's channel options (CLIENT_CHANNEL_OPTIONS: a 4 MiB
//   window);
// - tcp: the same messages length-prefixed on one plain TCP connection: what the kernel and
//   node's streams cost without HTTP/2 and gRPC, the hop's floor on the machine at hand.
// Env: IN_FLIGHT (50, the walk's connections), SECONDS (6). Build first (npm run build).
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const records = require('../../proto/dist/brand/records/v1/records.js');
const { CLIENT_CHANNEL_OPTIONS } = require('../../packages/shared/dist/grpcClient/client.js');

const MODES = ['grpc64k', 'grpc4m', 'tcp'];
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 50);
const SECONDS = Number(process.env.SECONDS ?? 6);

/** A page like the walk's: 50 submissions, about 17 KB of JSON. */
const PAGE = Buffer.from(
  JSON.stringify(
    Array.from({ length: 50 }, (_, i) => ({
      id: `sub_${String(i).padStart(22, '0')}`,
      campaign_id: 'cmp_0000000000000000000001',
      creator_handle: '@creator_handle',
      platform: 'tiktok',
      content_url: 'https://www.tiktok.com/@creator_handle/video/7312345678901234567',
      status: 'approved',
      rejection_reason: null,
      views: 123456,
      created_at: '2026-11-01T10:00:00.123456Z',
      updated_at: '2026-11-01T10:00:00.123456Z',
      reviewed_at: '2026-11-02T10:00:00.123456Z',
    })),
  ),
);
const CALL = {
  request_id: 'req_0123456789abcdefghijklmn',
  timeout_ms: 3000,
  traceparent: '',
  tracestate: '',
  page: {
    brand_id: 'brd_0123456789abcdefghijklmn',
    resource: 2,
    limit: 50,
    cursor:
      'eyJ0IjoiMjAyNi0xMS0wMVQxMDowMDowMC4xMjM0NTZaIiwiaSI6InN1Yl8xIn0.c2lnbmF0dXJlc2lnbmF0dXJl',
    since: undefined,
    with_change_version: false,
  },
};
const ANSWER = { data_json: PAGE, count: 50, next_cursor: 'next', change_version: undefined };
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Length-prefixed frames (u32 length, u32 id, body) on a byte stream. */
function writeFrame(socket, id, body) {
  const head = Buffer.allocUnsafe(8);
  head.writeUInt32BE(body.length + 4, 0);
  head.writeUInt32BE(id, 4);
  socket.write(Buffer.concat([head, body]));
}
function onFrames(socket, each) {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 8) {
      const length = pending.readUInt32BE(0);
      if (pending.length < 4 + length) break;
      each(pending.readUInt32BE(4), pending.subarray(8, 4 + length));
      pending = pending.subarray(4 + length);
    }
  });
}

/** The answering side (a forked child): listens, tells the parent its port, reports its CPU. */
function serve(mode) {
  const ready = (port) => process.send({ port });
  process.on('message', (m) => m === 'cpu' && process.send({ cpu: cpuMicros() }));
  if (mode === 'tcp') {
    const server = net.createServer((socket) => {
      socket.setNoDelay(true);
      onFrames(socket, (id) => setImmediate(() => writeFrame(socket, id, PAGE)));
    });
    server.listen(0, '127.0.0.1', () => ready(server.address().port));
    return;
  }
  const server = new grpc.Server();
  server.addService(records.RecordsServiceService, {
    streamRecordsPages(call) {
      call.on('data', (message) => {
        const callId = message.kind.value.call_id;
        // answered a turn later, as records answers after its query
        setImmediate(() =>
          call.write({
            kind: {
              $case: 'answer',
              value: { call_id: callId, outcome: { $case: 'page', value: ANSWER } },
            },
          }),
        );
      });
      call.on('end', () => call.end());
      call.on('error', () => {});
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    ready(port);
  });
}

/** The asking side: `IN_FLIGHT` pages always in flight; resolves with the figures. */
async function ask(mode) {
  const child = fork(new URL(import.meta.url).pathname, [], {
    env: { ...process.env, PAGE_HOP_SERVE: mode },
  });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  const { port } = await next();
  const waiting = new Map();
  const answered = (id) => {
    const done = waiting.get(id);
    waiting.delete(id);
    done?.();
  };
  let send;
  let close;
  if (mode === 'tcp') {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise((resolve) => socket.once('connect', resolve));
    onFrames(socket, answered);
    const body = Buffer.from(JSON.stringify(CALL));
    send = (id) => writeFrame(socket, id, body);
    close = () => socket.destroy();
  } else {
    const options = mode === 'grpc4m' ? CLIENT_CHANNEL_OPTIONS : {};
    const client = new records.RecordsServiceClient(
      `127.0.0.1:${port}`,
      grpc.credentials.createInsecure(),
      options,
    );
    const streams = [0, 1].map(() => {
      const call = client.streamRecordsPages(new grpc.Metadata());
      call.on('data', (m) => answered(Number(m.kind.value.call_id)));
      call.on('error', () => {});
      return call;
    });
    send = (id) =>
      streams[id % 2].write({ kind: { $case: 'call', value: { call_id: id, ...CALL } } });
    close = () => client.close();
  }
  let nextId = 1;
  let pages = 0;
  let stopping = false;
  const one = () => {
    const id = nextId++;
    waiting.set(id, () => {
      pages += 1;
      if (!stopping) one();
    });
    send(id);
  };
  for (let i = 0; i < IN_FLIGHT; i++) one();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const mine = cpuMicros();
  child.send('cpu');
  const theirs = (await next()).cpu;
  const [counted, started] = [pages, performance.now()];
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const n = pages - counted;
  const seconds = (performance.now() - started) / 1000;
  const mineAfter = cpuMicros();
  child.send('cpu');
  const theirsAfter = (await next()).cpu;
  stopping = true;
  close();
  child.kill();
  return {
    mode,
    pagesPerSecond: Math.round(n / seconds),
    askerMicrosPerPage: (mineAfter - mine) / n,
    answererMicrosPerPage: (theirsAfter - theirs) / n,
  };
}

if (process.env.PAGE_HOP_SERVE) {
  serve(process.env.PAGE_HOP_SERVE);
} else {
  const modes = process.argv.slice(2).length ? process.argv.slice(2) : MODES;
  for (const mode of modes) {
    if (!MODES.includes(mode)) throw new Error(`unknown mode ${mode} (${MODES.join(', ')})`);
    const r = await ask(mode);
    console.log(
      `${r.mode.padEnd(8)} ${String(r.pagesPerSecond).padStart(6)} pages/s  CPU per page: asker ${r.askerMicrosPerPage.toFixed(1)} µs, answerer ${r.answererMicrosPerPage.toFixed(1)} µs  (${IN_FLIGHT} in flight, ${SECONDS} s)`,
    );
  }
}
