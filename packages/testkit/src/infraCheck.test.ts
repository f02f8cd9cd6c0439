import { createServer, type Server } from 'node:net';
import { freePort } from './freePort';
import { warnWithoutKafka } from './infraCheck';

// warnWithoutKafka connects for real; only what it writes to stderr is caught, to read it.
async function warningWith(brokers: string): Promise<string> {
  const written: string[] = [];
  const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  const before = process.env.KAFKA_BROKERS;
  process.env.KAFKA_BROKERS = brokers;
  try {
    await warnWithoutKafka();
  } finally {
    if (before === undefined) delete process.env.KAFKA_BROKERS;
    else process.env.KAFKA_BROKERS = before;
    write.mockRestore();
  }
  return written.join('');
}

async function listening(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

it('says nothing when the first broker accepts a connection', async () => {
  const port = await freePort();
  const server = await listening(port);
  try {
    expect(await warningWith(`127.0.0.1:${port},127.0.0.1:1`)).toBe('');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

it('warns, naming the address and how to start the tests broker, when none answers', async () => {
  const port = await freePort(); // nothing listens on it
  const text = await warningWith(`127.0.0.1:${port}`);
  expect(text).toContain(`no Kafka broker answers on 127.0.0.1:${port}`);
  expect(text).toContain('KAFKA_DATA_DIR=.local/kafka-test scripts/kafka.sh ensure');
});
