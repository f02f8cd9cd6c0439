import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { SMTPServer } from 'smtp-server';

export interface DevMailbox {
  port: number;
  dir: string;
  close(): Promise<void>;
}

/**
 * A local SMTP sink for the local stack and tests: every message it accepts is written whole
 * to `<dir>/<time>-<random>.eml`, and nothing is relayed anywhere. Loopback only, no TLS, no
 * authentication: it must never listen on a shared network.
 */
export async function startDevMailbox(opts: {
  dir: string;
  port: number;
  host?: string;
}): Promise<DevMailbox> {
  await mkdir(opts.dir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: 1024 * 1024,
    onData(stream, _session, callback) {
      // Sortable names: the newest message is the last in a listing.
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
      pipeline(stream, createWriteStream(path.join(opts.dir, name), { mode: 0o600 })).then(
        () => callback(),
        (err: Error) => callback(err),
      );
    },
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => resolve());
  });
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    dir: opts.dir,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
