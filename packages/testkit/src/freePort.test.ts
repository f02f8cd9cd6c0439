import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freeRestartablePort } from './freePort';

const ephemeralLow = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

it('gives ports below the ephemeral range that a server can listen on', async () => {
  for (let i = 0; i < 5; i++) {
    const port = await freeRestartablePort();
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
