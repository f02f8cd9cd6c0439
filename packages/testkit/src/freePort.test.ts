import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './freePort';

const ephemeralLow = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

it('gives ports below the ephemeral range that a server can listen on', async () => {
  for (let i = 0; i < 5; i++) {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(ephemeralLow);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it('never gives one port twice, even to calls made at once', async () => {
  const ports = await Promise.all(Array.from({ length: 8 }, () => freePort()));
  expect(new Set(ports).size).toBe(8);
});

it("draws from this jest worker's own slice of the range", async () => {
  const worker = Number(process.env.JEST_WORKER_ID ?? 0);
  const base = Number(process.env.TEST_PORT_SLICE_BASE ?? 0);
  const width = Math.floor((ephemeralLow - 20_000) / 16);
  const low = 20_000 + ((worker + base) % 16) * width;
  const port = await freePort();
  expect(port).toBeGreaterThanOrEqual(low);
  expect(port).toBeLessThan(low + width);
});
