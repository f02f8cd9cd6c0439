import type { Response } from 'express';
import type { Delivery, HealthWindow, Receiver } from '@brand/proto/webhooks/v1';
import { roleAllows } from '@brand/shared/console';
import { ServiceCallError } from '../../clients/memberCaller';
import type { ConsoleDeps } from '../../consoleDeps';
import { notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import type { HealthWindowName } from './healthPanel';
import { DELIVERY_ID, RECEIVER_ID } from './input';
import { ReceiverPage, type ReceiverRights } from './receiverPage';
import type { ReceiverFormValues } from './view';

/** What a receiver's page may carry besides the receiver: a message, a refused form. */
export interface ReceiverPageExtra {
  error?: string;
  notice?: string;
  form?: ReceiverFormValues;
  healthWindow?: HealthWindowName;
}

/**
 * What every receiver route needs: the webhooks service as the member, the receiver and
 * delivery of the URL (404 for another brand's, whatever the ids), the member's rights from
 * the permission table, and the receiver's page.
 */
export function receiverKit(deps: ConsoleDeps) {
  const webhooks = deps.clients.webhooks;
  const as = (s: MemberSession) => ({ assertion: s.assertion });

  const getReceiver = async (s: MemberSession, id: string): Promise<Receiver> => {
    if (!RECEIVER_ID.test(id)) throw notFound();
    const { receiver } = await webhooks('getReceiver', { receiver_id: id }, as(s));
    // The service answers NOT_FOUND for another brand's receiver; this guards a stray answer.
    if (!receiver || receiver.brand_id !== s.brand.id) throw notFound();
    return receiver;
  };

  /** A delivery of this receiver; 404 for any other. */
  const getDelivery = async (s: MemberSession, receiver: Receiver, id: string) => {
    if (!DELIVERY_ID.test(id)) throw notFound();
    const { delivery } = await webhooks('getDelivery', { delivery_id: id }, as(s));
    if (!delivery || delivery.receiver_id !== receiver.id) throw notFound();
    return delivery;
  };

  const rightsOf = (s: MemberSession): ReceiverRights => ({
    canManage: roleAllows(s.role, 'receivers.manage'),
    canTest: roleAllows(s.role, 'receivers.test'),
    canResend: roleAllows(s.role, 'deliveries.resend'),
    canRetry: roleAllows(s.role, 'deliveries.retry'),
    canRecover: roleAllows(s.role, 'deliveries.recover'),
    canRotate: roleAllows(s.role, 'receivers.rotate'),
    canSwitch: roleAllows(s.role, 'receivers.switch'),
    canSeeHealth: roleAllows(s.role, 'receivers.health'),
  });

  /**
   * The receiver's health, or none when the service cannot tell now: the page (its log,
   * its forms) stays useful without the figures, and says they are unavailable.
   */
  const healthOf = async (s: MemberSession, receiver: Receiver): Promise<HealthWindow[]> => {
    if (!roleAllows(s.role, 'receivers.health')) return [];
    try {
      const { windows } = await webhooks('getReceiverHealth', { receiver_id: receiver.id }, as(s));
      return windows;
    } catch (err) {
      if (!(err instanceof ServiceCallError)) throw err;
      deps.log.warn({ err, receiver_id: receiver.id }, 'receiver health unavailable');
      return [];
    }
  };

  const receiverPage = async (
    res: Response,
    s: MemberSession,
    receiver: Receiver,
    extra: ReceiverPageExtra = {},
    httpStatus = 200,
  ) => {
    const [{ deliveries }, health]: [{ deliveries: Delivery[] }, HealthWindow[]] =
      await Promise.all([
        webhooks('listDeliveries', { receiver_id: receiver.id, brand_id: '', limit: 50 }, as(s)),
        healthOf(s, receiver),
      ]);
    sendPage(
      res,
      ReceiverPage({
        viewer: viewerOf(s),
        receiver,
        deliveries,
        health,
        healthWindow: extra.healthWindow ?? '24h',
        rights: rightsOf(s),
        now: new Date(),
        error: extra.error,
        notice: extra.notice,
        form: extra.form,
      }),
      httpStatus,
    );
  };

  return { webhooks, as, getReceiver, getDelivery, rightsOf, receiverPage };
}

export type ReceiverKit = ReturnType<typeof receiverKit>;
