import { z } from 'zod';
import type { Auditor } from '@brand/shared/activity';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { MAX_SWITCH_AHEAD_MS } from '@brand/shared/webhooks';
import { fieldError, parseTimestamp, toSecond } from '../requestFields';
import { recordReceiverActivity, SERVICE_AUDITOR } from './receiverActivity';
import type { ReceiverRow } from './receiverRepo';
import { getReceiver } from './receiverService';
import {
  discardRotation,
  lockDueSwitches,
  lockReceiver,
  scheduleSwitch,
  startRotation,
  switchToNewSecret,
  type LockedReceiver,
} from './rotationRepo';
import type { SecretBox } from '@brand/shared/secrets';
import { generateSigningSecret } from './newSigningSecret';

const receiverId = z.string().regex(/^rcv_[A-Za-z0-9]{1,64}$/, 'must be a receiver id (rcv_...)');

/**
 * Locks the receiver for a rotation change in the caller's transaction. A scheduled switch
 * that has come due is applied first (the new secret is already in force for the worker),
 * so every change sees the secret that signs now. not_found when the receiver is gone.
 */
export async function lockForRotation(db: PoolClient, id: string): Promise<LockedReceiver> {
  const locked = await lockReceiver(db, id);
  if (!locked) throw new AppError('not_found', `No receiver ${id}.`);
  if (!locked.switch_due) return locked;
  await applySwitch(db, locked, SERVICE_AUDITOR, 'as scheduled');
  return {
    ...locked,
    pending: false,
    switch_due: false,
    secret_version: locked.secret_version + 1,
  };
}

async function applySwitch(
  db: PoolClient,
  r: LockedReceiver,
  audit: Auditor,
  how: 'now' | 'as scheduled',
): Promise<void> {
  if (!(await switchToNewSecret(db, r.id))) return;
  const when = how === 'now' ? '' : ` for ${r.rotation_switch_at ?? 'now'}`;
  await recordReceiverActivity(
    db,
    audit,
    r,
    'receiver.secret_switched',
    `${r.label}: switched to the new signing secret ${how}${when}; the old one is destroyed`,
  );
}

const noRotation = (r: LockedReceiver): AppError =>
  new AppError(
    'no_rotation',
    `Receiver ${r.id} has no secret rotation pending (none was started, it was cancelled, or it ` +
      'has switched); start one first.',
  );

/**
 * Starts a rotation: a new signing secret is created, sealed beside the current one and
 * returned once; deliveries stay signed with the current secret until the switch.
 * rotation_pending while one is pending (switch or cancel it first).
 */
export async function rotateSecret(
  deps: { pool: Pool; box: SecretBox },
  input: { receiverId: string },
  audit: Auditor,
): Promise<{ receiver: ReceiverRow; secret: string }> {
  const v = parseOrThrow(z.object({ receiverId }), input);
  const secret = generateSigningSecret();
  await withTransaction(deps.pool, async (db) => {
    const r = await lockForRotation(db, v.receiverId);
    if (r.pending) {
      throw new AppError(
        'rotation_pending',
        `Receiver ${r.id} already has a secret rotation pending; switch to its new secret or cancel it first.`,
      );
    }
    await startRotation(db, r.id, deps.box.seal(secret, r.id), audit.email);
    await recordReceiverActivity(
      db,
      audit,
      r,
      'receiver.secret_rotation_started',
      `${r.label}: new signing secret created; deliveries stay signed with the current one until the switch`,
    );
  });
  return { receiver: await getReceiver(deps, v.receiverId), secret };
}

/**
 * Switches a pending rotation now (`at` empty or not in the future), or schedules the switch
 * at `at` (RFC 3339, at most 7 days ahead; rescheduling is allowed). From the switch on every
 * attempt is signed with the new secret and the old one is destroyed. no_rotation when none
 * is pending.
 */
export async function switchSecret(
  deps: { pool: Pool },
  input: { receiverId: string; at: string },
  audit: Auditor,
): Promise<ReceiverRow> {
  const v = parseOrThrow(z.object({ receiverId, at: z.string() }), input);
  const now = Date.now();
  const at = v.at === '' ? undefined : parseTimestamp(v.at, 'at');
  if (at && at.getTime() - now > MAX_SWITCH_AHEAD_MS) {
    throw fieldError('at', 'must be at most 7 days ahead');
  }
  await withTransaction(deps.pool, async (db) => {
    const r = await lockForRotation(db, v.receiverId);
    if (!r.pending) throw noRotation(r);
    if (!at || at.getTime() <= now) return applySwitch(db, r, audit, 'now');
    await scheduleSwitch(db, r.id, at);
    await recordReceiverActivity(
      db,
      audit,
      r,
      'receiver.secret_switch_scheduled',
      `${r.label}: switch to the new signing secret scheduled for ${toSecond(at)}`,
    );
  });
  return getReceiver(deps, v.receiverId);
}

/** Discards a pending rotation's new secret before its switch. no_rotation when none is pending. */
export async function cancelRotation(
  deps: { pool: Pool },
  input: { receiverId: string },
  audit: Auditor,
): Promise<ReceiverRow> {
  const v = parseOrThrow(z.object({ receiverId }), input);
  await withTransaction(deps.pool, async (db) => {
    const r = await lockForRotation(db, v.receiverId);
    if (!r.pending) throw noRotation(r);
    await discardRotation(db, r.id);
    await recordReceiverActivity(
      db,
      audit,
      r,
      'receiver.secret_rotation_cancelled',
      `${r.label}: secret rotation cancelled; the new secret is discarded`,
    );
  });
  return getReceiver(deps, v.receiverId);
}

/**
 * The sweep's part: applies up to `limit` scheduled switches that came due (the worker signs
 * with the new secret from the switch time on already; this destroys the old one). Returns
 * how many it applied.
 */
export function applyDueSwitches(pool: Pool, limit: number): Promise<number> {
  return withTransaction(pool, async (db) => {
    const due = await lockDueSwitches(db, limit);
    for (const r of due) await applySwitch(db, r, SERVICE_AUDITOR, 'as scheduled');
    return due.length;
  });
}
