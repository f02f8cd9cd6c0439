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

  it('is true for a listening port when the event loop was stalled past its timeout', async () => {
    // A stall as a loaded start makes one (a CI run, 2026-12-03: two probes in a row, the
    // webhooks service not ready beside a broker that was up): the connection opened meanwhile,
    // but the timeout's timer runs before the connection's callback when the loop goes on.
    const server = await listen();
    try {
      const answer = canConnect(`127.0.0.1:${portOf(server)}`, 20);
      process.nextTick(() => {
        const until = Date.now() + 150;
        while (Date.now() < until); // the stall, after the connect was sent
      });
      expect(await answer).toBe(true);
    } finally {
      await close(server);
    }
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

describe('watchKafkaReachability with scripted probes', () => {
  const quietLog = { info: () => undefined, error: () => undefined } as unknown as Logger;
  /** Runs the watch over `answers` (one per probe) and returns reachable() after each probe. */
  const verdicts = async (answers: boolean[], failuresInARow?: number): Promise<boolean[]> => {
    const seen: boolean[] = [];
    let next = 0;
    let resolveDone: () => void = () => undefined;
    const done = new Promise<void>((r) => (resolveDone = r));
    const watch = watchKafkaReachability({
      brokers: ['127.0.0.1:1'],
      intervalMs: 5,
      log: quietLog,
      ...(failuresInARow ? { failuresInARow } : {}),
      connect: () => {
        const answer = answers[next++] ?? true;
        // Read the verdict once this probe has been counted.
        setImmediate(() => {
          seen.push(watch.reachable());
          if (seen.length === answers.length) resolveDone();
        });
        return Promise.resolve(answer);
      },
    });
    try {
      await done;
    } finally {
      watch.stop();
    }
    return seen;
  };

  it('stays reachable through one failed probe and flips on the second in a row', async () => {
    expect(await verdicts([true, false, true, false, false, false, true])).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      true,
    ]);
  });

  it('takes the number of failures it is told', async () => {
    expect(await verdicts([false, true, false], 1)).toEqual([false, true, false]);
    expect(await verdicts([false, false, false, true], 3)).toEqual([true, true, false, true]);
  });

  it('never runs two probes at once', async () => {
    let inFlight = 0;
    let most = 0;
    let probes = 0;
    const watch = watchKafkaReachability({
      brokers: ['127.0.0.1:1'],
      intervalMs: 2,
      log: quietLog,
      connect: async () => {
        probes++;
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 30));
        inFlight--;
        return true;
      },
    });
    await new Promise((r) => setTimeout(r, 200));
    watch.stop();
    expect(probes).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
  });
});
