/**
 * The part of Web Crypto this package uses, typed here so that neither the DOM library nor
 * Node's types are needed to compile or consume it. `globalThis.crypto` exists in Node 20+,
 * Deno, Bun, browsers and edge runtimes.
 */
export interface WebCrypto {
  randomUUID(): string;
  subtle: {
    importKey(
      format: 'raw',
      keyData: Uint8Array,
      algorithm: { name: 'HMAC'; hash: 'SHA-256' },
      extractable: false,
      keyUsages: Array<'sign' | 'verify'>,
    ): Promise<unknown>;
    sign(algorithm: 'HMAC', key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
    verify(
      algorithm: 'HMAC',
      key: unknown,
      signature: Uint8Array,
      data: Uint8Array,
    ): Promise<boolean>;
  };
}

/** The runtime's Web Crypto; throws a clear error where there is none (Node below 19 without flags). */
export function webCrypto(): WebCrypto {
  const crypto = (globalThis as { crypto?: WebCrypto }).crypto;
  if (!crypto?.subtle) {
    throw new Error(
      '@brand-records/client needs Web Crypto (globalThis.crypto): use Node 20 or later.',
    );
  }
  return crypto;
}
