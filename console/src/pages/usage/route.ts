import type { Router } from 'express';
import { roleAllows } from '@brand/shared/console';
import { API_ERROR_CODES } from '@brand/shared/errors';
import type { ConsoleDeps } from '../../consoleDeps';
import { memberOf, viewerOf } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { RequestLogPage } from './requestLogView';
import { UsagePage, USAGE_WINDOWS, type UsageWindow } from './usageView';

const KEY_FILTER = /^(?:key_[A-Za-z0-9]{1,64}|none)$/;
const PAGE_TOKEN = /^[0-9A-Za-z:.~-]{1,80}$/;
/** The codes a request can be refused or fail with (4xx and 5xx of the error table). */
const LOGGED_CODES: readonly string[] = [...API_ERROR_CODES].sort();

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Usage (/usage: the chart and the keys' shares) and the request log (/requests). Records
 * decides what a member may read (usage.read, requests.read) and whether 401 reasons are
 * included (owners); the console only renders. Filters are query parameters: a bad one is
 * ignored rather than refused, so a stale link still shows the page.
 */
export function registerUsage(router: Router, deps: ConsoleDeps): void {
  router.get('/usage', async (req, res) => {
    const s = memberOf(res);
    const ctx = { assertion: s.assertion };
    const window: UsageWindow =
      text(req.query.window) in USAGE_WINDOWS ? (text(req.query.window) as UsageWindow) : '24h';
    const wanted = text(req.query.key);
    const keyId = /^key_[A-Za-z0-9]{1,64}$/.test(wanted) ? wanted : '';
    const [usage, { keys }] = await Promise.all([
      deps.clients.usage('getUsage', { brand_id: s.brand.id, key_id: keyId, window }, ctx),
      deps.clients.access('listKeys', { brand_id: s.brand.id }, ctx),
    ]);
    sendPage(res, UsagePage({ viewer: viewerOf(s), usage, keys, keyId, window }));
  });

  router.get('/requests', async (req, res) => {
    const s = memberOf(res);
    const ctx = { assertion: s.assertion };
    const key = KEY_FILTER.test(text(req.query.key)) ? text(req.query.key) : '';
    const code = LOGGED_CODES.includes(text(req.query.code)) ? text(req.query.code) : '';
    const page = PAGE_TOKEN.test(text(req.query.page)) ? text(req.query.page) : '';
    const [log, { keys }] = await Promise.all([
      deps.clients.usage(
        'listRequestLog',
        { brand_id: s.brand.id, key_id: key, error_code: code, page_size: 50, page_token: page },
        ctx,
      ),
      deps.clients.access('listKeys', { brand_id: s.brand.id }, ctx),
    ]);
    sendPage(
      res,
      RequestLogPage({
        viewer: viewerOf(s),
        log,
        keys,
        filters: { key, code },
        showReasons: roleAllows(s.role, 'requests.reasons'),
        codes: LOGGED_CODES,
      }),
    );
  });
}
