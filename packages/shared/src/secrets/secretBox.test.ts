import { randomBytes } from 'node:crypto';
import { SecretBox } from './secretBox';

const key = (): string => randomBytes(32).toString('base64');
const KNOWN_ID = 'd9695f8f6233';

describe('SecretBox', () => {
  it('seals and opens, and the ciphertext does not contain the secret', () => {
    const box = new SecretBox(key());
    const secret = 'whsec_0123456789abcdefABCDEF0123456789';
    const sealed = box.seal(secret, 'rcv_1');
    expect(sealed.ciphertext.toString('latin1')).not.toContain(secret);
    expect(box.open(sealed, 'rcv_1')).toBe(secret);
  });

  it('opens secrets sealed under a previous key after rotation', () => {
    const oldKey = key();
    const sealed = new SecretBox(oldKey).seal('whsec_abc', 'rcv_1');
    expect(new SecretBox(key(), [oldKey]).open(sealed, 'rcv_1')).toBe('whsec_abc');
    expect(() => new SecretBox(key()).open(sealed, 'rcv_1')).toThrow(/no configured secret key/);
  });

  it('refuses a ciphertext moved to another receiver or tampered with', () => {
    const box = new SecretBox(key());
    const sealed = box.seal('whsec_abc', 'rcv_1');
    expect(() => box.open(sealed, 'rcv_2')).toThrow();
    const tampered = Buffer.from(sealed.ciphertext);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => box.open({ ...sealed, ciphertext: tampered }, 'rcv_1')).toThrow();
  });

  it('refuses a key of the wrong length', () => {
    expect(() => new SecretBox(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });

  it('names a key as webhooks always did, so ids stored beside receivers keep opening', () => {
    // A fixed key and the id the webhooks service stored for it before the box moved here.
    expect(new SecretBox(Buffer.alloc(32, 7).toString('base64')).currentKeyId).toBe(KNOWN_ID);
  });
});
