import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { AttemptDeadline } from './attemptDeadline';
import { describeNoResponse } from './sendErrors';

describe('AttemptDeadline', () => {
  it('aborts once, with a TimeoutError as its reason, when its time is up', async () => {
    const deadline = new AttemptDeadline(20);
    let fired = 0;
    deadline.on('abort', () => fired++);
    expect(deadline.aborted).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(fired).toBe(1);
    expect(deadline.aborted).toBe(true);
    expect(deadline.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('never fires once cleared', async () => {
    const deadline = new AttemptDeadline(20);
    let fired = 0;
    deadline.on('abort', () => fired++);
    deadline.clear();
    await new Promise((r) => setTimeout(r, 60));
    expect(fired).toBe(0);
    expect(deadline.aborted).toBe(false);
  });

  describe('as the signal of an undici request', () => {
    // a receiver that answers its headers at once, then a byte every 50 ms for ever: undici's
    // own headers and body timeouts never fire (each byte resets the body's), so only the
    // whole attempt's deadline can end the attempt
    let server: Server;
    let url: string;
    const agent = new Agent({ headersTimeout: 10_000, bodyTimeout: 10_000 });
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/plain' });
        const drip = setInterval(() => res.write('x'), 50);
        res.on('close', () => clearInterval(drip));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    });
    afterAll(async () => {
      await agent.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    it('ends an answer that trickles past it, read as a timeout', async () => {
      const deadline = new AttemptDeadline(300);
      const started = Date.now();
      const attempt = async (): Promise<string> => {
        const res = await request(url, {
          method: 'POST',
          body: '{}',
          dispatcher: agent,
          signal: deadline,
        });
        return res.body.text();
      };
      const err = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      deadline.clear();
      expect(err).toMatchObject({ name: 'TimeoutError' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(
        describeNoResponse(err, new URL(url), { connectMs: 1_000, totalMs: 300 }),
      ).toMatchObject({ errorClass: 'timeout', timedOut: true });
    });

    it('leaves an answer that ends in time alone, and removes its listener', async () => {
      const quick = createServer((req, res) => {
        req.resume();
        res.end('ok');
      });
      await new Promise<void>((r) => quick.listen(0, '127.0.0.1', r));
      const port = (quick.address() as AddressInfo).port;
      try {
        const deadline = new AttemptDeadline(5_000);
        const res = await request(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          body: '{}',
          dispatcher: agent,
          signal: deadline,
        });
        expect(await res.body.text()).toBe('ok');
        deadline.clear();
        // undici removes its listener when the answer's body closes, a turn after it is read
        await new Promise((r) => setImmediate(r));
        expect(deadline.listenerCount('abort')).toBe(0);
        expect(deadline.aborted).toBe(false);
      } finally {
        quick.closeAllConnections();
        await new Promise((r) => quick.close(r));
      }
    });
  });
});
