import type { Response } from 'express';
import type { HealthWindow, Receiver } from '@brand/proto/webhooks/v1';
import { roleAllows } from '@brand/shared/console';
import type { VNode } from 'preact';
import { bestEffort } from '../../clients/bestEffort';
import type { ConsoleDeps } from '../../consoleDeps';
import { notFound, viewerOf, type MemberSession } from '../../session/memberSession';
import { namedFields } from '../../views/refusal';
import { sendPage } from '../../views/render';
import type { HealthWindowName } from './healthPanel';
import type { AskedLog } from './deliveryLogFilter';
import { loadDeliveryLog } from './deliveryLogLoader';
import { DELIVERY_ID, RECEIVER_ID } from './input';
import { deliveryStatusName } from './deliveryStatus';
import { ReceiverFrame, type ReceiverRights, type ReceiverTab } from './receiverPage';
import { DeliveriesTab } from './tabs/deliveriesTab';
import { OverviewTab } from './tabs/overviewTab';
import { RecoveryTab } from './tabs/recoveryTab';
import { SettingsTab } from './tabs/settingsTab';
import { TestingTab } from './tabs/testingTab';
import { RECEIVER_EDIT_FIELDS, type ReceiverFormValues } from './view';

/** What a receiver's tab may carry besides the receiver: a message, a refused form. */
export interface ReceiverPageExtra {
  error?: string;
  notice?: string;
  form?: ReceiverFormValues;
  healthWindow?: HealthWindowName;
  /** The delivery log's filter and page as asked (the deliveries tab's query string). */
  log?: AskedLog;
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
   * The receiver's health, or none when the service cannot tell now: the tab stays useful
   * without the figures, and says they are unavailable.
   */
  const healthOf = async (s: MemberSession, receiver: Receiver): Promise<HealthWindow[]> => {
    if (!roleAllows(s.role, 'receivers.health')) return [];
    const health = await bestEffort(deps.log, 'receiver health', () =>
      webhooks('getReceiverHealth', { receiver_id: receiver.id }, as(s)),
    );
    return health?.windows ?? [];
  };

  /** A tab of the receiver's page, with what that tab shows loaded (the log, the health). */
  const receiverPage = async (
    res: Response,
    s: MemberSession,
    receiver: Receiver,
    tab: ReceiverTab,
    extra: ReceiverPageExtra = {},
    httpStatus = 200,
  ) => {
    const viewer = viewerOf(s);
    const rights = rightsOf(s);
    const now = new Date();
    let content: VNode;
    let scripts: string[] = [];
    if (tab === 'deliveries') {
      const asked = extra.log ?? { filter: {} };
      const log = await loadDeliveryLog(deps.clients, s, { receiverId: receiver.id }, asked);
      // a refused filter is said above the log's form (DeliveryLogFilters), as on Events
      if (log.refusal && httpStatus === 200) {
        res.setHeader('X-Console-Error', log.refusal.code);
        httpStatus = 400;
      }
      content = DeliveriesTab({ viewer, receiver, rights, deliveries: log.deliveries, log });
    } else if (tab === 'overview') {
      const health = await healthOf(s, receiver);
      const healthWindow = extra.healthWindow ?? '24h';
      content = OverviewTab({ viewer, receiver, rights, health, healthWindow });
    } else if (tab === 'testing') {
      content = TestingTab({ viewer, receiver, rights });
    } else if (tab === 'recovery') {
      content = RecoveryTab({ viewer, receiver, rights, now });
    } else {
      const onceToken = deps.submitOnce.token();
      content = SettingsTab({ viewer, receiver, rights, now, form: extra.form, onceToken });
      // a Test signed with the new secret is followed here until it is answered
      const rotation = receiver.rotation;
      if (rotation?.test_delivery_id && deliveryStatusName(rotation.test_status) === 'pending')
        scripts = ['/static/poll.js'];
    }
    sendPage(
      res,
      ReceiverFrame({
        viewer,
        receiver,
        tab,
        notice: extra.notice,
        error: extra.error,
        errorFields: namedFields(extra.form?.conflicts, RECEIVER_EDIT_FIELDS),
        scripts,
        children: content,
      }),
      httpStatus,
    );
  };

  return { webhooks, as, getReceiver, getDelivery, rightsOf, receiverPage };
}

export type ReceiverKit = ReturnType<typeof receiverKit>;
