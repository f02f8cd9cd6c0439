import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { ReceiverConnections } from './receiverConnections';

/** A receiver on loopback that counts the connections it has open. */
async function receiver(): Promise<{ url: URL; open: () => number; close: () => Promise<void> }> {
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
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const post = async (connections: ReceiverConnections, url: URL) => {
  const res = await request(url, { method: 'POST', body: '{}', dispatcher: connections.of(url) });
  await res.body.text();
  return res.statusCode;
};

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
};

describe('ReceiverConnections (issue 64)', () => {
  it('keeps the connections of the receivers delivered to last, at most its bound', async () => {
    const receivers = await Promise.all([receiver(), receiver(), receiver()]);
    const connections = new ReceiverConnections({ keepAliveTimeout: 60_000 }, 2);
    try {
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
      // and the first gets a new pool when delivered to again
      expect(await post(connections, receivers[0].url)).toBe(200);
      await until(() => receivers[2].open() === 0);
      expect(receivers.map((r) => r.open())).toEqual([1, 1, 0]);
    } finally {
      await connections.destroy();
      await Promise.all(receivers.map((r) => r.close()));
    }
  });

  it('lets an attempt in flight on a pool it lets go finish', async () => {
    let answer: (() => void) | undefined;
    const slow = http.createServer((_req, res) => {
      answer = () => res.end('late');
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowUrl = new URL(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`);
    const other = await receiver();
    const connections = new ReceiverConnections({}, 1);
    try {
      const pending = post(connections, slowUrl);
      await until(() => answer !== undefined);
      expect(await post(connections, other.url)).toBe(200); // evicts the slow receiver's pool
      answer!();
      expect(await pending).toBe(200);
    } finally {
      await connections.destroy();
      await other.close();
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
