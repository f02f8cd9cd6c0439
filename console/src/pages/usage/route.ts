import type { Router } from 'express';
import { roleAllows } from '@brand/shared/console';
import { GATEWAY_ERROR_CODES } from '@brand/shared/errors';
import type { ConsoleDeps } from '../../consoleDeps';
import { freshAssertion, memberOf, viewerOf } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { parseExportFormat, parseTimeRange } from '@brand/shared/export';
import { sendExport } from '../../http/exportResponse';
import { asRefusal, queryFields } from '../../http/queryFields';
import { REASON_COLUMNS, REQUEST_COLUMNS, requestLogRows } from './requestLogRows';
import { RequestLogPage } from './requestLogView';
import { UsagePage, USAGE_WINDOWS, type UsageWindow } from './usageView';

const KEY_FILTER = /^(?:key_[A-Za-z0-9]{1,64}|none)$/;
const PAGE_TOKEN = /^[0-9A-Za-z:.~-]{1,80}$/;
/** The codes the request log can hold: those the gateway answers (the error table's). */
export const LOGGED_CODES: readonly string[] = [...GATEWAY_ERROR_CODES].sort();

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
    const range = timeRangeOf(req.query);
    const [log, { keys }] = await Promise.all([
      deps.clients.usage(
        'listRequestLog',
        {
          brand_id: s.brand.id,
          key_id: key,
          error_code: code,
          page_size: 50,
          page_token: page,
          ...range,
        },
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
        filters: { key, code, ...range },
        showReasons: roleAllows(s.role, 'requests.reasons'),
        codes: LOGGED_CODES,
      }),
    );
  });

  router.get('/requests/export', async (req, res) => {
    const s = memberOf(res);
    const q = queryFields(req.query, ['format', 'key', 'code', 'page']);
    const format = asRefusal(() => parseExportFormat(q.format));
    const request = {
      brand_id: s.brand.id,
      key_id: q.key,
      error_code: q.code,
      page_token: q.page,
      ...timeRangeOf(req.query),
    };
    const showReasons = roleAllows(s.role, 'requests.reasons');
    const fresh = freshAssertion(deps.clients, s);
    await sendExport(res, deps.log, {
      brandId: s.brand.id,
      name: `requests-${s.brand.id}`,
      format,
      columns: showReasons ? [...REQUEST_COLUMNS, ...REASON_COLUMNS] : REQUEST_COLUMNS,
      rows: requestLogRows(async (r) => {
        const assertion = await fresh();
        return deps.clients.usage('listRequestLog', r, { assertion });
      }, request),
      cursorAfter: (row) => `${String(row.at)}~${String(row.id)}`,
    });
  });
}

/**
 * since/until as typed in the page's time fields ("2026-11-20 14:00" or a day, UTC:
 * views/utcTimeInput.tsx), checked here so a bad one is a 400 in words.
 */
function timeRangeOf(query: Record<string, unknown>): { since: string; until: string } {
  const range = queryFields(query, ['since', 'until']);
  asRefusal(() => parseTimeRange(range));
  return range;
}
