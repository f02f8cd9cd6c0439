import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import tls, { type TLSSocket } from 'node:tls';
import { createTestCa, type TestCa } from '@brand/testkit';
import { request } from 'undici';
import { ReceiverConnections } from './receiverConnections';

/** A receiver on loopback that counts the connections it has open. */
async function receiver(): Promise<{
  url: URL;
  open: () => number;
  dropConnections: () => void;
  close: () => Promise<void>;
}> {
  let open = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (_req, res) => res.end('ok'));
  server.on('connection', (socket) => {
    open++;
    socket.on('close', () => open--);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/hooks`),
    open: () => open,
    dropConnections: () => server.closeIdleConnections(),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const post = async (connections: ReceiverConnections, url: URL) => {
  const connection = connections.lease(url);
  try {
    const res = await request(url, {
      method: 'POST',
      body: '{}',
      dispatcher: connection.dispatcher,
    });
    await res.body.text();
    return res.statusCode;
  } finally {
    connection.release();
  }
};

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
};

/** A receiver's first attempt, over a connection of its own: the next ones keep theirs. */
const firstAttempt = async (connections: ReceiverConnections, r: { url: URL; open(): number }) => {
  expect(await post(connections, r.url)).toBe(200);
  await until(() => r.open() === 0);
};

describe('ReceiverConnections (issue 64)', () => {
  it('keeps a receiver’s connections from its second attempt on; a first one takes no kept receiver’s place', async () => {
    const [busy, quiet] = await Promise.all([receiver(), receiver()]);
    const connections = new ReceiverConnections({ keepAliveTimeout: 60_000 }, 1);
    try {
      // the first attempt: a connection of its own, closed once the answer is read
      expect(await post(connections, busy.url)).toBe(200);
      await until(() => busy.open() === 0);
      expect([busy.open(), connections.size, connections.connectionCount]).toEqual([0, 0, 0]);
      // the second and later ones: one connection, kept and reused
      for (let i = 0; i < 3; i++) expect(await post(connections, busy.url)).toBe(200);
      expect([busy.open(), connections.size, connections.connectionCount]).toEqual([1, 1, 1]);
      // a quiet receiver's one attempt: its connection closes, the busy one's stays kept
      expect(await post(connections, quiet.url)).toBe(200);
      await until(() => quiet.open() === 0);
      expect([busy.open(), quiet.open(), connections.size]).toEqual([1, 0, 1]);
      // delivered to again, it is kept, in the busy one's place (a bound of one receiver)
      expect(await post(connections, quiet.url)).toBe(200);
      await until(() => busy.open() === 0);
      expect([busy.open(), quiet.open(), connections.size]).toEqual([0, 1, 1]);
    } finally {
      await connections.destroy();
      await Promise.all([busy.close(), quiet.close()]);
    }
  });

  it('remembers at most its bound of receivers attempted once', async () => {
    const [a, b] = await Promise.all([receiver(), receiver()]);
    const connections = new ReceiverConnections({ keepAliveTimeout: 60_000 }, 2, 8, 1);
    try {
      await firstAttempt(connections, a);
      await firstAttempt(connections, b); // a is forgotten: its next attempt is a first again
      await firstAttempt(connections, a);
      expect(connections.size).toBe(0);
      expect(await post(connections, a.url)).toBe(200);
      expect([a.open(), connections.size]).toEqual([1, 1]);
    } finally {
      await connections.destroy();
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('closes the connections of attempts in flight at destroy, single attempts’ too', async () => {
    const hanging = http.createServer(() => undefined);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const url = new URL(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`);
    const connections = new ReceiverConnections({}, 1);
    try {
      const pending = post(connections, url);
      await until(() => connections.connectionCount === 1);
      await connections.destroy();
      await expect(pending).rejects.toThrow();
      expect(connections.connectionCount).toBe(0);
    } finally {
      hanging.closeAllConnections();
      await new Promise((r) => hanging.close(r));
    }
  });

  it('keeps the connections of the receivers delivered to last, at most its bound', async () => {
    const receivers = await Promise.all([receiver(), receiver(), receiver()]);
    const connections = new ReceiverConnections({ keepAliveTimeout: 60_000 }, 2);
    try {
      for (const r of receivers) await firstAttempt(connections, r);
      for (const r of receivers.slice(0, 2)) expect(await post(connections, r.url)).toBe(200);
      expect(receivers.map((r) => r.open())).toEqual([1, 1, 0]);
      // a third receiver: the least recently used one's connection closes
      expect(await post(connections, receivers[2].url)).toBe(200);
      await until(() => receivers[0].open() === 0);
      expect(receivers.map((r) => r.open())).toEqual([0, 1, 1]);
      expect(connections.size).toBe(2);
      // the second, used again, keeps its connection (reused: no new one opened)
      expect(await post(connections, receivers[1].url)).toBe(200);
      expect(receivers[1].open()).toBe(1);
      // and the first gets a new connection when delivered to again, kept at once (it was kept)
      expect(await post(connections, receivers[0].url)).toBe(200);
      await until(() => receivers[2].open() === 0);
      expect(receivers.map((r) => r.open())).toEqual([1, 1, 0]);
    } finally {
      await connections.destroy();
      await Promise.all(receivers.map((r) => r.close()));
    }
  });

  it('opens a receiver no more connections than its attempts in flight, and reuses them', async () => {
    const r = await receiver();
    const connections = new ReceiverConnections({ keepAliveTimeout: 60_000 }, 10);
    try {
      await firstAttempt(connections, r);
      // three at once: three connections
      expect(await Promise.all([1, 2, 3].map(() => post(connections, r.url)))).toEqual([
        200, 200, 200,
      ]);
      expect(r.open()).toBe(3);
      // one after another: the connection used last, again and again
      for (let i = 0; i < 5; i++) expect(await post(connections, r.url)).toBe(200);
      expect(r.open()).toBe(3);
      expect(connections.connectionCount).toBe(3);
      // a connection the receiver closed is opened again by its next attempt
      r.dropConnections();
      await until(() => r.open() === 0);
      expect(await post(connections, r.url)).toBe(200);
      expect(r.open()).toBe(1);
      expect(connections.connectionCount).toBe(3);
    } finally {
      await connections.destroy();
      await r.close();
    }
  });

  it('lets an attempt in flight on a connection it lets go finish', async () => {
    let answer: (() => void) | undefined;
    let hold = false;
    const slow = http.createServer((_req, res) => {
      if (hold) answer = () => res.end('late');
      else res.end('ok');
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowUrl = new URL(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`);
    const other = await receiver();
    const connections = new ReceiverConnections({}, 1);
    try {
      expect(await post(connections, slowUrl)).toBe(200); // its first attempt
      hold = true;
      const pending = post(connections, slowUrl); // on a kept connection
      await until(() => answer !== undefined);
      await firstAttempt(connections, other);
      expect(await post(connections, other.url)).toBe(200); // evicts the slow receiver's
      answer!();
      expect(await pending).toBe(200);
    } finally {
      await connections.destroy();
      await other.close();
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });

  describe('TLS sessions per origin', () => {
    let ca: TestCa;
    beforeAll(() => {
      ca = createTestCa();
    });
    afterAll(() => ca.remove());

    /** An HTTPS receiver that closes each connection after its answer and counts resumptions. */
    async function tlsReceiver(): Promise<{
      url: URL;
      handshakes: { all: number; resumed: number };
      close: () => Promise<void>;
    }> {
      const handshakes = { all: 0, resumed: 0 };
      const server = https.createServer(ca.tls, (_req, res) => {
        res.setHeader('connection', 'close');
        res.end('ok');
      });
      server.on('secureConnection', (socket: TLSSocket) => {
        handshakes.all++;
        if (socket.isSessionReused()) handshakes.resumed++;
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      return {
        url: new URL(`https://localhost:${port}/hooks`),
        handshakes,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      };
    }

    const tlsOptions = (): ConstructorParameters<typeof ReceiverConnections>[0] => ({
      connect: { ca: readFileSync(ca.caFile) },
    });

    it('resumes a receiver’s session on its next connection, after its connections were let go too', async () => {
      const [a, b] = await Promise.all([tlsReceiver(), tlsReceiver()]);
      const connections = new ReceiverConnections(tlsOptions(), 1);
      try {
        expect(await post(connections, a.url)).toBe(200);
        // the receiver closed that connection: the next one resumes
        expect(await post(connections, a.url)).toBe(200);
        expect(a.handshakes).toEqual({ all: 2, resumed: 1 });
        // b's connections replace a's (one receiver kept, b from its second attempt on); a's
        // session outlives them
        expect(await post(connections, b.url)).toBe(200);
        expect(await post(connections, b.url)).toBe(200);
        expect(await post(connections, a.url)).toBe(200);
        expect(a.handshakes).toEqual({ all: 3, resumed: 2 });
        // b's session is b's alone: its first connection was a full handshake
        expect(b.handshakes).toEqual({ all: 2, resumed: 1 });
        expect(connections.sessionCount).toBe(2);
      } finally {
        await connections.destroy();
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('checks a receiver’s name on its certificate alone at a full handshake, and refuses another name', async () => {
      const r = await tlsReceiver();
      const connections = new ReceiverConnections(tlsOptions(), 1);
      const asked = jest.spyOn(tls.TLSSocket.prototype, 'getPeerCertificate');
      try {
        expect(await post(connections, r.url)).toBe(200);
        expect(r.handshakes).toEqual({ all: 1, resumed: 0 });
        // node's name check asked for the leaf alone, never for the chain built as objects
        expect(asked.mock.calls).toEqual([[false]]);
        // the same receiver asked for a name its certificate does not carry: refused
        const elsewhere = new ReceiverConnections(
          { connect: { ca: readFileSync(ca.caFile), servername: 'elsewhere.example' } },
          1,
        );
        await expect(post(elsewhere, r.url)).rejects.toMatchObject({
          code: 'ERR_TLS_CERT_ALTNAME_INVALID',
        });
        await elsewhere.destroy();
      } finally {
        asked.mockRestore();
        await connections.destroy();
        await r.close();
      }
    });

    it('keeps the sessions of at most its bound of origins', async () => {
      const receivers = await Promise.all([tlsReceiver(), tlsReceiver(), tlsReceiver()]);
      const connections = new ReceiverConnections(tlsOptions(), 1, 2);
      try {
        for (const r of receivers) expect(await post(connections, r.url)).toBe(200);
        expect(connections.sessionCount).toBe(2);
        // the first one's session went with the bound: a full handshake again
        expect(await post(connections, receivers[0].url)).toBe(200);
        expect(receivers[0].handshakes).toEqual({ all: 2, resumed: 0 });
        expect(await post(connections, receivers[2].url)).toBe(200);
        expect(receivers[2].handshakes).toEqual({ all: 2, resumed: 1 });
      } finally {
        await connections.destroy();
        await Promise.all(receivers.map((r) => r.close()));
      }
    });

    /**
     * A TCP relay in front of `target` that reads the TLS record headers the client sends (type,
     * version, length: 5 bytes before each record) and keeps the largest length seen.
     */
    async function recordWatcher(target: URL): Promise<{
      url: URL;
      largest: () => number;
      close: () => Promise<void>;
    }> {
      let largest = 0;
      const sockets = new Set<net.Socket>();
      const relay = net.createServer((client) => {
        const upstream = net.connect(Number(target.port), '127.0.0.1');
        sockets.add(client).add(upstream);
        let pending = Buffer.alloc(0);
        client.on('data', (chunk: Buffer) => {
          pending = Buffer.concat([pending, chunk]);
          while (pending.length >= 5) {
            const length = pending.readUInt16BE(3);
            if (pending.length < 5 + length) break;
            largest = Math.max(largest, length);
            pending = pending.subarray(5 + length);
          }
          upstream.write(chunk);
        });
        upstream.pipe(client);
        for (const s of [client, upstream]) s.on('error', () => undefined);
      });
      await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
      const { port } = relay.address() as AddressInfo;
      return {
        url: new URL(`https://localhost:${port}${target.pathname}`),
        largest: () => largest,
        close: () =>
          new Promise((r) => {
            for (const s of sockets) s.destroy();
            relay.close(() => r());
          }),
      };
    }

    it('sends a receiver TLS records of at most 4 KiB (its write buffer is that small), a large body intact', async () => {
      const received: string[] = [];
      const server = https.createServer(ca.tls, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push(Buffer.concat(chunks).toString());
          res.end('ok');
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const target = new URL(`https://localhost:${(server.address() as AddressInfo).port}/hooks`);
      const watcher = await recordWatcher(target);
      const connections = new ReceiverConnections(tlsOptions(), 1);
      const body = JSON.stringify({ data: 'x'.repeat(50_000) });
      try {
        const connection = connections.lease(watcher.url);
        const res = await request(watcher.url, {
          method: 'POST',
          body,
          dispatcher: connection.dispatcher,
        });
        await res.body.text();
        connection.release();
        expect(res.statusCode).toBe(200);
        expect(received).toEqual([body]);
        // 4,096 bytes of plaintext, plus the AEAD tag and the record's type (TLS 1.3)
        expect(watcher.largest()).toBeGreaterThan(4_096);
        expect(watcher.largest()).toBeLessThanOrEqual(4_096 + 256);
      } finally {
        await connections.destroy();
        await watcher.close();
        await new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        });
      }
    });
  });
});
