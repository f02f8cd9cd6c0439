import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
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
 * to `<dir>/<time>-<random>.eml`, with its text readable beside it in `.txt` (quoted-printable
 * folds long links across lines in the .eml), and nothing is relayed anywhere. Loopback only,
 * no TLS, no authentication: it must never listen on a shared network.
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
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;
      const eml = path.join(opts.dir, `${name}.eml`);
      // Both files appear whole: each is written under a name no reader lists (.part) and
      // renamed into place, the text first. Streamed straight to its name, a mail was once
      // read with its headers and no body yet (a CI run of the SSO sign-in test, 2026-11-27).
      pipeline(stream, createWriteStream(`${eml}.part`, { mode: 0o600 }))
        .then(async () => {
          const text = readableText(await readFile(`${eml}.part`, 'utf8'));
          const txt = path.join(opts.dir, `${name}.txt`);
          await writeFile(`${txt}.part`, text, { mode: 0o600 });
          await rename(`${txt}.part`, txt);
          await rename(`${eml}.part`, eml);
        })
        .then(
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

/** The From, To and Subject lines and the decoded text body of a single-part message. */
function readableText(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? Buffer.from(
          body
            .replace(/=\r?\n/g, '')
            .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) =>
              String.fromCharCode(parseInt(hex, 16)),
            ),
          'latin1',
        ).toString('utf8')
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return `From: ${header('From')}\nTo: ${header('To')}\nSubject: ${header('Subject')}\n\n${text.replace(/\r\n/g, '\n')}`;
}
