import type { Router } from 'express';
import { roleAllows } from '@brand/shared/console';
import type { ConsoleDeps } from '../../consoleDeps';
import { memberOf, viewerOf } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { logFilterOf } from '../receivers/deliveryLogFilter';
import { loadDeliveryLog } from '../receivers/deliveryLogLoader';
import { DeliveriesPage } from './view';

/**
 * The brand's deliveries across receivers (/deliveries): ListDeliveries for the brand as the
 * member (deliveries.read), with the filters of a receiver's log. A filter that is not one is
 * said in words above the newest deliveries, with status 400.
 */
export function registerBrandDeliveries(router: Router, deps: ConsoleDeps): void {
  router.get('/deliveries', async (req, res) => {
    const s = memberOf(res);
    const asked = logFilterOf(req.query);
    const [log, receivers] = await Promise.all([
      loadDeliveryLog(deps.clients, s, { brandId: s.brand.id }, asked.filter),
      // the notice's loader read them for this GET already (attentionLoader.ts)
      s.receivers ??
        deps.clients
          .webhooks('listReceivers', { brand_id: s.brand.id }, { assertion: s.assertion })
          .then((r) => r.receivers),
    ]);
    const error = [asked.error, log.error].filter(Boolean).join(' ') || undefined;
    sendPage(
      res,
      DeliveriesPage({
        viewer: viewerOf(s),
        log: { ...log, error },
        receivers,
        rights: {
          canResend: roleAllows(s.role, 'deliveries.resend'),
          canRetry: roleAllows(s.role, 'deliveries.retry'),
        },
      }),
      error ? 400 : 200,
    );
  });
}
