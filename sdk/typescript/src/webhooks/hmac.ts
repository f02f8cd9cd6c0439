import { webCrypto } from '../webCrypto.js';
import { concatBytes } from './rawBody.js';

const encoder = new TextEncoder();

/** The signed message of docs/contract.md#receiver-verification: `<timestamp>.<raw body>`, as bytes. */
export function signedPayload(timestamp: string, body: Uint8Array): Uint8Array {
  return concatBytes([encoder.encode(`${timestamp}.`), body]);
}

function hmacKey(secret: string): Promise<unknown> {
  return webCrypto().subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
}

/** Lower-case hex of HMAC-SHA256(secret, payload). */
export async function hmacSha256Hex(secret: string, payload: Uint8Array): Promise<string> {
  const digest = await webCrypto().subtle.sign('HMAC', await hmacKey(secret), payload);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Bytes of a hex string already checked to be 64 hex digits. */
export function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * True when any secret's HMAC of `payload` equals `digest`. Web Crypto's verify compares in
 * constant time, and every secret is tried (no early exit), so the time taken tells an
 * attacker neither how much of a guess was right nor which secret matched.
 */
export async function anySecretMatches(
  secrets: readonly string[],
  payload: Uint8Array,
  digest: Uint8Array,
): Promise<boolean> {
  const subtle = webCrypto().subtle;
  const results = await Promise.all(
    secrets.map(async (secret) => subtle.verify('HMAC', await hmacKey(secret), digest, payload)),
  );
  return results.includes(true);
}
