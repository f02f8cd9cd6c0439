import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
/** A sealed secret as stored: the ciphertext and the id of the key that sealed it. */
export interface SealedSecret {
  ciphertext: Buffer;
  keyId: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A short, non-secret fingerprint naming a key, stored beside each ciphertext. The prefix
 * stays "webhooks-secret-key:" now that records seals SSO client secrets with the same key:
 * the ids already stored beside receivers' secrets must keep naming their key.
 */
const keyIdOf = (key: Buffer): string =>
  createHash('sha256').update('webhooks-secret-key:').update(key).digest('hex').slice(0, 12);

/**
 * Seals secrets at rest (receivers' signing secrets in webhooks, SSO client secrets in
 * records) with AES-256-GCM under WEBHOOK_SECRET_KEY. Former keys
 * (WEBHOOK_SECRET_KEYS_PREVIOUS) still open what they sealed, so a key can be rotated
 * without re-encrypting every row at once. Layout: iv (12) | tag (16) | ciphertext.
 */
export class SecretBox {
  private readonly current: { id: string; key: Buffer };
  private readonly byId = new Map<string, Buffer>();

  /** Keys are base64 strings of 32 bytes; throws on any other length. */
  constructor(currentKey: string, previousKeys: readonly string[] = []) {
    const keys = [currentKey, ...previousKeys].map((k) => Buffer.from(k, 'base64'));
    for (const key of keys) {
      if (key.length !== 32) throw new Error('a secret key must be 32 bytes (base64)');
      this.byId.set(keyIdOf(key), key);
    }
    this.current = { id: keyIdOf(keys[0]!), key: keys[0]! };
  }

  /** The id of the key new secrets are sealed with (WEBHOOK_SECRET_KEY). */
  get currentKeyId(): string {
    return this.current.id;
  }

  seal(secret: string, aad: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(aad));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]), keyId: this.current.id };
  }

  /**
   * Opens a sealed secret. `aad` binds it to its row (a receiver's id, an SSO
   * connection's brand), so a ciphertext copied onto another row does not open. Throws when the key is unknown (rotated away too early) or
   * the ciphertext was tampered with.
   */
  open(sealed: SealedSecret, aad: string): string {
    const key = this.byId.get(sealed.keyId);
    if (!key) throw new Error(`no configured secret key has id ${sealed.keyId}`);
    const iv = sealed.ciphertext.subarray(0, IV_BYTES);
    const tag = sealed.ciphertext.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(tag);
    const body = sealed.ciphertext.subarray(IV_BYTES + TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
