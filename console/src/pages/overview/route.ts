import type { Router } from 'express';
import type { ConsoleDeps } from '../../consoleDeps';
import { memberOf, viewerOf } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { loadOverview } from './overviewData';
import { OverviewPage } from './view';

/** A brand's home, /brands/<id>: the overview of its receivers, traffic, failures, plans and keys. */
export function registerOverview(router: Router, deps: ConsoleDeps): void {
  router.get('/', async (_req, res) => {
    const s = memberOf(res);
    const now = Date.now();
    const data = await loadOverview(deps, s, now);
    sendPage(res, OverviewPage({ viewer: viewerOf(s), data, now }));
  });
}
