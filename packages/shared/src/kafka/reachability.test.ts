import { createServer, type Server } from 'node:net';
import type { Logger } from '../logger';
import { canConnect, watchKafkaReachability } from './reachability';

const listen = (port = 0): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer((s) => s.destroy());
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const portOf = (s: Server): number => (s.address() as { port: number }).port;
const close = (s: Server): Promise<void> => new Promise((r) => s.close(() => r()));
const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('canConnect', () => {
  it('is true for a listening port and false for a closed one', async () => {
    const server = await listen();
    const address = `127.0.0.1:${portOf(server)}`;
    expect(await canConnect(address, 500)).toBe(true);
    await close(server);
    expect(await canConnect(address, 500)).toBe(false);
  });
});

describe('watchKafkaReachability', () => {
  it('says when no broker answers and when one is back, logging each change', async () => {
    const server = await listen();
    const port = portOf(server);
    const lines: string[] = [];
    const log = {
      info: (_: unknown, msg: string) => lines.push(`info ${msg}`),
      error: (_: unknown, msg: string) => lines.push(`error ${msg}`),
    } as unknown as Logger;
    const changes: boolean[] = [];
    const watch = watchKafkaReachability({
      brokers: [`127.0.0.1:${port}`],
      intervalMs: 20,
      log,
      onChange: (r) => changes.push(r),
    });
    try {
      expect(watch.reachable()).toBe(true);
      await close(server);
      await until(() => !watch.reachable());
      expect(lines.join('\n')).toMatch(/^error Kafka unreachable/m);
      const back = await listen(port);
      await until(() => watch.reachable());
      await close(back);
      expect(changes.slice(0, 2)).toEqual([false, true]);
      expect(lines).toContain('info Kafka reachable again');
    } finally {
      watch.stop();
    }
  });
});
