import type { ReceiverTarget } from '../claim/claimRepo';
import { CANCELLED_ROTATION, secretInForce } from './signingSecret';

const OLD = Buffer.from('old');
const NEW = Buffer.from('new');
const at = (iso: string): Date => new Date(iso);

const target = (over: Partial<ReceiverTarget> = {}): ReceiverTarget => ({
  id: 'rcv_x',
  url: 'https://x.example/',
  enabled: true,
  secret_ciphertext: OLD,
  secret_key_id: 'k1',
  secret_version: 3,
  pending_secret_ciphertext: null,
  pending_secret_key_id: null,
  rotation_switch_at: null,
  failure_count: 0,
  kind: 'webhook',
  ...over,
});
const rotating = (switchAt: string | null): ReceiverTarget =>
  target({
    pending_secret_ciphertext: NEW,
    pending_secret_key_id: 'k1',
    rotation_switch_at: switchAt === null ? null : at(switchAt),
  });
const signedWith = (choice: ReturnType<typeof secretInForce>): string =>
  choice.ok ? `${choice.sealed.ciphertext.toString()}@${choice.version}` : 'none';

describe('secretInForce', () => {
  const now = at('2026-11-20T14:00:00Z');

  it('signs with the current secret when no rotation is pending', () => {
    expect(signedWith(secretInForce(target(), null, now))).toBe('old@3');
  });

  it('keeps signing with the current secret while a rotation waits for its switch', () => {
    expect(signedWith(secretInForce(rotating(null), null, now))).toBe('old@3');
    expect(signedWith(secretInForce(rotating('2026-11-20T14:00:01Z'), null, now))).toBe('old@3');
  });

  it('signs with the new secret from the switch instant, before the sweep moved it', () => {
    expect(signedWith(secretInForce(rotating('2026-11-20T14:00:00Z'), null, now))).toBe('new@4');
    expect(signedWith(secretInForce(rotating('2026-11-20T13:00:00Z'), null, now))).toBe('new@4');
  });

  it('signs a Test of the new secret with it before the switch, and after it as the current one', () => {
    expect(signedWith(secretInForce(rotating(null), 4, now))).toBe('new@4');
    expect(signedWith(secretInForce(rotating('2026-11-20T13:00:00Z'), 4, now))).toBe('new@4');
    // switched by the sweep: the new secret is the current one, version 4
    const switched = target({ secret_ciphertext: NEW, secret_version: 4 });
    expect(signedWith(secretInForce(switched, 4, now))).toBe('new@4');
  });

  it('signs nothing for a Test whose rotation was cancelled', () => {
    const choice = secretInForce(target(), 4, now);
    expect(choice).toEqual({ ok: false, reason: expect.stringMatching(/cancelled/) as string });
  });

  it('signs nothing for a Test of a cancelled rotation while the next rotation, of the same version, is pending', () => {
    for (const r of [target(), rotating(null), rotating('2026-11-20T13:00:00Z')]) {
      expect(signedWith(secretInForce(r, CANCELLED_ROTATION, now))).toBe('none');
    }
  });
});
