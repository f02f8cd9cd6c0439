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
 * said in words above the form, which keeps it, with status 400 and nothing listed.
 */
export function registerBrandDeliveries(router: Router, deps: ConsoleDeps): void {
  router.get('/deliveries', async (req, res) => {
    const s = memberOf(res);
    const [log, receivers] = await Promise.all([
      loadDeliveryLog(deps.clients, s, { brandId: s.brand.id }, logFilterOf(req.query)),
      // the notice's loader read them for this GET already (attentionLoader.ts)
      s.receivers ??
        deps.clients
          .webhooks('listReceivers', { brand_id: s.brand.id }, { assertion: s.assertion })
          .then((r) => r.receivers),
    ]);
    // a refused filter: 400, said above the form that keeps it, nothing listed (as on Events)
    if (log.refusal) res.setHeader('X-Console-Error', log.refusal.code);
    sendPage(
      res,
      DeliveriesPage({
        viewer: viewerOf(s),
        log,
        receivers,
        rights: {
          canResend: roleAllows(s.role, 'deliveries.resend'),
          canRetry: roleAllows(s.role, 'deliveries.retry'),
        },
      }),
      log.refusal ? 400 : 200,
    );
  });
}
