import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { createTestCa, type TestCa } from '@brand/testkit';
import { sessionWithoutCertificate } from './sessionWithoutCertificate';

/** A TLS server answering "ok" to a line, with a certificate of `ca`. */
async function tlsServer(ca: TestCa): Promise<{ port: number; close: () => Promise<void> }> {
  const server = tls.createServer(ca.tls, (socket) => {
    socket.once('data', () => socket.end('ok'));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

interface Exchange {
  reused: boolean;
  authorized: boolean;
  peerCertificateKeys: number;
  answer: string;
  sessions: Buffer[];
}

/** One exchange over a new connection that trusts `caFile` and offers `session`. */
function exchange(port: number, caFile: string, session?: Buffer): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const sessions: Buffer[] = [];
    const socket = tls.connect(
      { host: '127.0.0.1', port, servername: 'localhost', ca: readFileSync(caFile), session },
      () => socket.write('hi\n'),
    );
    let answer = '';
    socket.on('session', (s: Buffer) => sessions.push(s));
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', reject);
    socket.on('end', () =>
      resolve({
        reused: socket.isSessionReused(),
        authorized: socket.authorized,
        peerCertificateKeys: Object.keys(socket.getPeerCertificate()).length,
        answer,
        sessions,
      }),
    );
  });
}

describe('sessionWithoutCertificate', () => {
  let ca: TestCa;
  let other: TestCa;
  beforeAll(() => {
    ca = createTestCa();
    other = createTestCa();
  });
  afterAll(() => {
    ca.remove();
    other.remove();
  });

  it('leaves the receiver’s certificate out of a real session, which still resumes, authorized', async () => {
    const server = await tlsServer(ca);
    try {
      const first = await exchange(server.port, ca.caFile);
      expect(first).toMatchObject({ reused: false, authorized: true, answer: 'ok' });
      const session = first.sessions.at(-1)!;
      const certificate = new X509Certificate(ca.tls.cert).raw;
      expect(session.includes(certificate)).toBe(true);

      const stripped = sessionWithoutCertificate(session);
      expect(stripped.includes(certificate)).toBe(false);
      expect(stripped.length).toBeLessThan(session.length - certificate.length);

      const resumed = await exchange(server.port, ca.caFile, stripped);
      expect(resumed).toMatchObject({ reused: true, authorized: true, answer: 'ok' });
      // nothing of the certificate is held for the resumed connection
      expect(resumed.peerCertificateKeys).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('a receiver that declines the session gets a full handshake, its chain verified', async () => {
    const [issuer, stranger] = await Promise.all([tlsServer(ca), tlsServer(other)]);
    try {
      const { sessions } = await exchange(issuer.port, ca.caFile);
      const stripped = sessionWithoutCertificate(sessions.at(-1)!);
      // another server cannot resume it; its certificate (another CA's) is checked and refused
      await expect(exchange(stranger.port, ca.caFile, stripped)).rejects.toMatchObject({
        code: expect.stringMatching(/CERT|SIGNATURE|ISSUER/) as unknown,
      });
    } finally {
      await Promise.all([issuer.close(), stranger.close()]);
    }
  });

  it('gives back anything it does not expect unchanged', () => {
    const withoutCertificate = Buffer.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x00]);
    for (const odd of [
      Buffer.alloc(0),
      Buffer.from('not a session'),
      withoutCertificate,
      // a SEQUENCE whose length runs past the end
      Buffer.from([0x30, 0x82, 0x10, 0x00, 0xa3, 0x01]),
      // a field whose length runs past the SEQUENCE
      Buffer.from([0x30, 0x04, 0xa3, 0x09, 0x00, 0x00]),
      // trailing bytes after the SEQUENCE
      Buffer.from([0x30, 0x02, 0xa3, 0x00, 0xff]),
    ])
      expect(sessionWithoutCertificate(odd)).toBe(odd);
  });

  it('drops the [3] field and re-encodes the SEQUENCE’s length, long form included', () => {
    const before = Buffer.alloc(150, 0x41);
    const field = (tag: number, content: Buffer): Buffer =>
      Buffer.concat([Buffer.from([tag, 0x81, content.length]), content]);
    const kept = field(0x04, before);
    const certificate = field(0xa3, Buffer.alloc(200, 0x42));
    const content = Buffer.concat([kept, certificate]);
    const session = Buffer.concat([
      Buffer.from([0x30, 0x82, content.length >> 8, content.length & 0xff]),
      content,
    ]);
    expect(sessionWithoutCertificate(session)).toEqual(
      Buffer.concat([Buffer.from([0x30, 0x81, kept.length]), kept]),
    );
  });
});
