import { randomBytes } from 'node:crypto';
import { SecretBox, type SealedSecret } from '@brand/shared/secrets';
import { OpenedSecrets } from './openedSecrets';

/** A SecretBox that counts the secrets it really opened. */
function countingBox(key = randomBytes(32).toString('base64')) {
  const box = new SecretBox(key);
  const counted = {
    opens: 0,
    open(sealed: SealedSecret, aad: string): string {
      counted.opens++;
      return box.open(sealed, aad);
    },
  };
  return { box, counted };
}

describe('OpenedSecrets', () => {
  it('opens a receiver’s secret once, then answers it from what it kept', () => {
    const { box, counted } = countingBox();
    const secrets = new OpenedSecrets(counted);
    const sealed = box.seal('whsec_one', 'rcv_a');
    for (let i = 0; i < 5; i++) expect(secrets.open(sealed, 'rcv_a')).toBe('whsec_one');
    // the row as read again by another claim: equal bytes, another buffer
    expect(secrets.open({ ...sealed, ciphertext: Buffer.from(sealed.ciphertext) }, 'rcv_a')).toBe(
      'whsec_one',
    );
    expect(counted.opens).toBe(1);
  });

  it('opens again what differs: a rotation’s new secret, another receiver, a changed byte', () => {
    const { box, counted } = countingBox();
    const secrets = new OpenedSecrets(counted);
    const first = box.seal('whsec_one', 'rcv_a');
    const rotated = box.seal('whsec_two', 'rcv_a');
    expect(secrets.open(first, 'rcv_a')).toBe('whsec_one');
    expect(secrets.open(rotated, 'rcv_a')).toBe('whsec_two');
    expect(secrets.open(first, 'rcv_a')).toBe('whsec_one');
    expect(counted.opens).toBe(2);
    // the same bytes under another receiver's id: its AAD does not match, so it does not open
    expect(() => secrets.open(first, 'rcv_b')).toThrow();
    // a tampered tail with the same IV (the key's prefix): opened again, and refused
    const tampered = Buffer.from(first.ciphertext);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => secrets.open({ ...first, ciphertext: tampered }, 'rcv_a')).toThrow();
    // a refusal is not kept: the genuine row still opens to its secret
    expect(secrets.open(first, 'rcv_a')).toBe('whsec_one');
  });

  it('keeps nothing a later write to the caller’s buffer could change', () => {
    const { box, counted } = countingBox();
    const secrets = new OpenedSecrets(counted);
    const sealed = box.seal('whsec_one', 'rcv_a');
    const buffer = Buffer.from(sealed.ciphertext);
    expect(secrets.open({ ...sealed, ciphertext: buffer }, 'rcv_a')).toBe('whsec_one');
    buffer[buffer.length - 1]! ^= 1;
    expect(() => secrets.open({ ...sealed, ciphertext: buffer }, 'rcv_a')).toThrow();
  });

  it('keeps at most `max` secrets, letting the one used least recently go first', () => {
    const { box, counted } = countingBox();
    const secrets = new OpenedSecrets(counted, 2);
    const a = box.seal('a', 'rcv_a');
    const b = box.seal('b', 'rcv_b');
    const c = box.seal('c', 'rcv_c');
    secrets.open(a, 'rcv_a');
    secrets.open(b, 'rcv_b');
    secrets.open(c, 'rcv_c'); // a leaves
    expect(counted.opens).toBe(3);
    secrets.open(c, 'rcv_c');
    secrets.open(b, 'rcv_b');
    expect(counted.opens).toBe(3);
    expect(secrets.open(a, 'rcv_a')).toBe('a');
    expect(counted.opens).toBe(4);
  });
});
