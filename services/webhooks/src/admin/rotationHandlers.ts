import type { WebhooksServiceServer } from '@brand/proto/webhooks/v1';
import { auditorNamed } from '@brand/shared/activity';
import type { Pool } from '@brand/shared/db';
import type { RpcBuilder } from '@brand/shared/grpc';
import { cancelRotation, rotateSecret, switchSecret } from '../receivers/rotationService';
import type { SecretBox } from '@brand/shared/secrets';
import { authorizedReceiver } from './authorized';
import { toReceiver } from './toProto';

/**
 * The signing-secret rotation RPCs: start (the new secret shown once), switch now or at a
 * time, cancel. TestReceiver with_new_secret, the rotation's Test, is in adminHandlers.
 */
export function rotationHandlers(
  deps: { pool: Pool; box: SecretBox },
  rpc: RpcBuilder,
): Pick<WebhooksServiceServer, 'rotateSecret' | 'switchSecret' | 'cancelRotation'> {
  const { pool } = deps;
  return {
    rotateSecret: rpc.developers('RotateSecret', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'receivers.rotate', req.receiver_id);
      const { receiver, secret } = await rotateSecret(
        deps,
        { receiverId: req.receiver_id },
        auditorNamed(actor, req.actor_email),
      );
      return { receiver: toReceiver(receiver), new_secret: secret };
    }),

    switchSecret: rpc.developers('SwitchSecret', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'receivers.switch', req.receiver_id);
      const receiver = await switchSecret(
        deps,
        { receiverId: req.receiver_id, at: req.at },
        auditorNamed(actor, req.actor_email),
      );
      return { receiver: toReceiver(receiver) };
    }),

    cancelRotation: rpc.developers('CancelRotation', async (req, { actor }) => {
      await authorizedReceiver(pool, actor, 'receivers.rotate', req.receiver_id);
      const receiver = await cancelRotation(
        deps,
        { receiverId: req.receiver_id },
        auditorNamed(actor, req.actor_email),
      );
      return { receiver: toReceiver(receiver) };
    }),
  };
}
