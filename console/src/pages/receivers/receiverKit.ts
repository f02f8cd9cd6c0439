import type { Response } from 'express';
import type { Delivery, HealthWindow, Receiver } from '@brand/proto/webhooks/v1';
import { roleAllows } from '@brand/shared/console';
import { ServiceCallError } from '../../clients/memberCaller';
import type { ConsoleDeps } from '../../consoleDeps';
import { notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import type { HealthWindowName } from './healthPanel';
import { formRefusal } from '../../http/formRefusal';
import { logRequest, type LogFilter } from './deliveryLogFilter';
import { DELIVERY_ID, RECEIVER_ID } from './input';
import { ReceiverPage, type ReceiverRights } from './receiverPage';
import type { ReceiverFormValues } from './view';

/** What a receiver's page may carry besides the receiver: a message, a refused form. */
export interface ReceiverPageExtra {
  error?: string;
  notice?: string;
  form?: ReceiverFormValues;
  healthWindow?: HealthWindowName;
  /** The delivery log's filter and page (the page's query string). */
  log?: LogFilter;
}

/** Deliveries per page of a receiver's log. */
const LOG_PAGE = 50;

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

  /**
   * A page of the receiver's delivery log. A filter the service refuses (a cursor from another
   * log, a range it does not take) shows the newest deliveries with the service's reason.
   */
  const logOf = async (
    s: MemberSession,
    receiver: Receiver,
    filter: LogFilter,
  ): Promise<{
    deliveries: Delivery[];
    nextCursor: string;
    retentionDays: number;
    filter: LogFilter;
    error?: string;
  }> => {
    try {
      const page = await webhooks(
        'listDeliveries',
        logRequest(receiver.id, filter, LOG_PAGE),
        as(s),
      );
      return {
        deliveries: page.deliveries,
        nextCursor: page.next_cursor,
        retentionDays: page.history_retention_days,
        filter,
      };
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused || refused.httpStatus !== 400) throw err;
      const page = await webhooks('listDeliveries', logRequest(receiver.id, {}, LOG_PAGE), as(s));
      return {
        deliveries: page.deliveries,
        nextCursor: page.next_cursor,
        retentionDays: page.history_retention_days,
        filter: {},
        error: refused.message,
      };
    }
  };

  const receiverPage = async (
    res: Response,
    s: MemberSession,
    receiver: Receiver,
    extra: ReceiverPageExtra = {},
    httpStatus = 200,
  ) => {
    const filter = extra.log ?? {};
    const [log, health] = await Promise.all([logOf(s, receiver, filter), healthOf(s, receiver)]);
    const error = [extra.error, log.error].filter(Boolean).join(' ') || undefined;
    sendPage(
      res,
      ReceiverPage({
        viewer: viewerOf(s),
        receiver,
        deliveries: log.deliveries,
        log: { filter: log.filter, nextCursor: log.nextCursor, retentionDays: log.retentionDays },
        health,
        healthWindow: extra.healthWindow ?? '24h',
        rights: rightsOf(s),
        now: new Date(),
        error,
        notice: extra.notice,
        form: extra.form,
      }),
      log.error && httpStatus === 200 ? 400 : httpStatus,
    );
  };

  return { webhooks, as, getReceiver, getDelivery, rightsOf, receiverPage };
}

export type ReceiverKit = ReturnType<typeof receiverKit>;
