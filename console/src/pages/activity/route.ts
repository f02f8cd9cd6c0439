import type { Router } from 'express';
import type { ActivityEntry } from '@brand/proto/activity/v1';
import type { ConsoleDeps } from '../../consoleDeps';
import { memberOf, viewerOf } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { ActivityPage } from './view';

const PAGE = 100;

/**
 * The brand's audit log: records (keys, members, sign-ins), webhooks (receivers, deliveries)
 * and plans each keep their own; the page merges their newest entries by time. A service that
 * does not answer leaves its part out and the page says so.
 */
export function registerActivity(router: Router, deps: ConsoleDeps): void {
  router.get('/activity', async (_req, res) => {
    const s = memberOf(res);
    const request = { brand_id: s.brand.id, page_size: PAGE, page_token: '' };
    const ctx = { assertion: s.assertion };
    const sources = [
      ['keys, members and sign-ins', deps.clients.access('listActivity', request, ctx)],
      ['receivers and deliveries', deps.clients.webhooks('listActivity', request, ctx)],
      ['plans', deps.clients.plans('listActivity', request, ctx)],
    ] as const;
    const settled = await Promise.allSettled(sources.map(([, call]) => call));
    const entries: ActivityEntry[] = [];
    const unavailable: string[] = [];
    settled.forEach((result, i) => {
      if (result.status === 'fulfilled') entries.push(...result.value.entries);
      else unavailable.push(sources[i]![0]);
    });
    // RFC 3339 UTC with microseconds of one width: string order is time order.
    entries.sort((a, b) =>
      a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0,
    );
    sendPage(
      res,
      ActivityPage({ viewer: viewerOf(s), entries: entries.slice(0, PAGE), unavailable }),
    );
  });
}
