import type { ReceiverTarget } from '../claim/claimRepo';
import type { SealedSecret } from '@brand/shared/secrets';

/** Which sealed secret signs an attempt, or why none can. */
export type SecretChoice =
  { ok: true; sealed: SealedSecret; version: number } | { ok: false; reason: string };

/**
 * The secret_version of a Test whose rotation was cancelled: no version is 0 (they count from
 * 1), so it never names a secret, whichever rotation comes next.
 */
export const CANCELLED_ROTATION = 0;

/**
 * The secret in force at the instant of signing. A rotation's new secret is in force from
 * its switch time on, whether or not the sweep has moved it into place yet, so an attempt
 * due after the switch (a retry of an older event included) is never signed with the old
 * one. `wantedVersion` is set on a Test signed with a rotation's new secret: that version,
 * which after the switch is simply the current one. When its rotation was cancelled, nothing
 * can sign it: cancelling marks its Tests CANCELLED_ROTATION (discardRotation), since the
 * version number alone is reused by the next rotation, whose secret must not sign them.
 */
export function secretInForce(
  target: ReceiverTarget,
  wantedVersion: number | null,
  now: Date,
): SecretChoice {
  const current = { sealed: sealed(target.secret_ciphertext, target.secret_key_id) };
  const pending =
    target.pending_secret_ciphertext && target.pending_secret_key_id
      ? sealed(target.pending_secret_ciphertext, target.pending_secret_key_id)
      : undefined;
  const switched =
    pending !== undefined &&
    target.rotation_switch_at !== null &&
    target.rotation_switch_at.getTime() <= now.getTime();
  if (wantedVersion === CANCELLED_ROTATION) return { ok: false, reason: DISCARDED };
  const inForce = switched
    ? { sealed: pending, version: target.secret_version + 1 }
    : { ...current, version: target.secret_version };
  if (wantedVersion === null || wantedVersion === inForce.version) return { ok: true, ...inForce };
  if (pending && !switched && wantedVersion === target.secret_version + 1) {
    return { ok: true, sealed: pending, version: wantedVersion };
  }
  return { ok: false, reason: DISCARDED };
}

const DISCARDED =
  'the new secret this test was to be signed with was discarded (rotation cancelled)';

const sealed = (ciphertext: Buffer, keyId: string): SealedSecret => ({ ciphertext, keyId });
