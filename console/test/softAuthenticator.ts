import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software WebAuthn authenticator for the HTTP tests: a real P-256 key pair, real
 * attestation and assertion structures (CBOR, authenticator data, ECDSA signatures over
 * authenticatorData ‖ SHA-256(clientDataJSON)), so records' @simplewebauthn/server verifies
 * them exactly as it verifies a browser's. Tests can then bend one thing at a time (the
 * origin, the counter, a replay) that a browser's authenticator would never let them. The
 * browser tests use Chromium's own virtual authenticator instead.
 */

/** The CBOR (RFC 8949) WebAuthn needs: unsigned and negative ints, byte and text strings, maps. */
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function cborHead(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  const b = Buffer.alloc(3);
  b[0] = (major << 5) | 25;
  b.writeUInt16BE(n, 1);
  return b;
}

function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? cborHead(0, v) : cborHead(1, -1 - v);
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([cborHead(3, b.length), b]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([cborHead(2, v.length), Buffer.from(v)]);
  const parts = [...v.entries()].flatMap(([k, x]) => [cbor(k), cbor(x)]);
  return Buffer.concat([cborHead(5, v.size), ...parts]);
}

const sha256 = (b: Buffer | string): Buffer => createHash('sha256').update(b).digest();
const b64url = (b: Buffer): string => b.toString('base64url');

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
}

/** One passkey held by the soft authenticator. */
interface Held {
  credentialId: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  rpId: string;
  counter: number;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export class SoftAuthenticator {
  private held: Held | undefined;

  constructor(private readonly origin: string) {}

  /** Answers navigator.credentials.create's options as @simplewebauthn/browser would send it. */
  register(options: CreationOptions, opts: { origin?: string } = {}): string {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const credentialId = randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([FLAG_UP | FLAG_UV | FLAG_AT]),
      Buffer.alloc(4), // counter 0
      Buffer.alloc(16), // AAGUID: none
      idLength,
      credentialId,
      cbor(coseKey),
    ]);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin: opts.origin ?? this.origin,
      crossOrigin: false,
    });
    this.held = { credentialId, privateKey, userHandle: options.user.id, rpId, counter: 0 };
    return JSON.stringify({
      id: b64url(credentialId),
      rawId: b64url(credentialId),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(Buffer.from(clientDataJSON)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    });
  }

  /**
   * Answers navigator.credentials.get's options with the passkey it holds, its counter one
   * higher each time unless `counter` says otherwise.
   */
  assert(options: RequestOptions, opts: { origin?: string; counter?: number } = {}): string {
    const held = this.held;
    if (!held) throw new Error('the soft authenticator holds no passkey');
    held.counter = opts.counter ?? held.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(held.counter);
    const authData = Buffer.concat([
      sha256(options.rpId ?? held.rpId),
      Buffer.from([FLAG_UP | FLAG_UV]),
      counter,
    ]);
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: options.challenge,
        origin: opts.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientDataJSON)]),
      held.privateKey,
    );
    return JSON.stringify({
      id: b64url(held.credentialId),
      rawId: b64url(held.credentialId),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: held.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    });
  }
}
