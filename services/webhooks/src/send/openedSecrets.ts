import { LRUCache } from 'lru-cache';
import type { SealedSecret, SecretBox } from '@brand/shared/secrets';

interface Opened {
  ciphertext: Buffer;
  secret: string;
}

/** Receivers' secrets kept open at most; the one used least recently leaves first. */
const DEFAULT_MAX = 10_000;

/**
 * Signing secrets as the worker opens them, kept open by receiver: every attempt used to run
 * AES-GCM (a decipher, its tag check, three buffers) on the same ciphertext, about 3 % of the
 * webhooks service's CPU at a thousand deliveries a second. An entry is used only for the
 * exact sealed bytes it was opened from (the same receiver, key id and ciphertext), so a
 * rotation, a reseal under a new key or a tampered row is opened again, and a failure to open
 * is never kept. The process already holds the keys that open every secret; keeping the
 * opened ones adds no secret it could not read.
 */
export class OpenedSecrets {
  private readonly opened: LRUCache<string, Opened>;

  constructor(
    private readonly box: Pick<SecretBox, 'open'>,
    max = DEFAULT_MAX,
  ) {
    this.opened = new LRUCache({ max });
  }

  /** The secret of `sealed` for receiver `receiverId` (its AAD); throws as SecretBox.open does. */
  open(sealed: SealedSecret, receiverId: string): string {
    // the IV leads the ciphertext and is random for each sealing: it names the sealing
    const key = `${receiverId}\u0000${sealed.keyId}\u0000${sealed.ciphertext.toString('base64', 0, 12)}`;
    const kept = this.opened.get(key);
    if (kept && kept.ciphertext.equals(sealed.ciphertext)) return kept.secret;
    const secret = this.box.open(sealed, receiverId);
    this.opened.set(key, { ciphertext: Buffer.from(sealed.ciphertext), secret });
    return secret;
  }
}
