import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import tls, { type DetailedPeerCertificate, type PeerCertificate } from 'node:tls';
import { createTestCa, type TestCa } from '@brand/testkit';
import { checkIdentityOnLeaf } from './identityFromLeaf';

interface Outcome {
  authorized: boolean;
  /** The certificates checkServerIdentity was given (node's own check runs on each). */
  checked: PeerCertificate[];
  /** The socket's getPeerCertificate(true) once connected. */
  afterwards: DetailedPeerCertificate;
}

/** A full handshake with `servername`, trusting `caFile`, the name checked on the leaf. */
function handshake(port: number, caFile: string, servername: string): Promise<Outcome> {
  const checked: PeerCertificate[] = [];
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      {
        host: '127.0.0.1',
        port,
        servername,
        ca: readFileSync(caFile),
        checkServerIdentity: (host, cert) => {
          checked.push(cert);
          return tls.checkServerIdentity(host, cert);
        },
      },
      () => {
        resolve({
          authorized: socket.authorized,
          checked,
          afterwards: socket.getPeerCertificate(true),
        });
        socket.destroy();
      },
    );
    checkIdentityOnLeaf(socket);
    socket.on('error', reject);
  });
}

describe('checkIdentityOnLeaf', () => {
  let ca: TestCa;
  let other: TestCa;
  let server: tls.Server;
  let port: number;
  beforeAll(async () => {
    ca = createTestCa();
    other = createTestCa();
    server = tls.createServer(ca.tls, (socket) => socket.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    ca.remove();
    other.remove();
  });

  it('has node check the name on the receiver’s certificate alone, and gives the chain back after', async () => {
    const outcome = await handshake(port, ca.caFile, 'localhost');
    expect(outcome.authorized).toBe(true);
    expect(outcome.checked).toHaveLength(1);
    const [leaf] = outcome.checked;
    expect(leaf!.subject.CN).toBe('localhost');
    expect(leaf!.subjectaltname).toContain('DNS:localhost');
    // the leaf alone: no chain built as objects (node's own call asks for it)
    expect('issuerCertificate' in leaf!).toBe(false);
    // once connected, the socket answers as node's does
    expect(outcome.afterwards.issuerCertificate?.subject.CN).toBe('Brand Records local test CA');
  });

  it('still refuses a certificate for another name', async () => {
    await expect(handshake(port, ca.caFile, 'example.com')).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('still refuses a certificate of a CA it does not trust', async () => {
    await expect(handshake(port, other.caFile, 'localhost')).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });
});
