import type { Router } from 'express';
import type { ActivityEntry } from '@brand/proto/activity/v1';
import {
  decodeActivityCursor,
  encodeActivityCursor,
  mergeActivity,
  mergedActivityPage,
  parseActivityFilters,
  type ActivityFilterFields,
} from '@brand/shared/activity';
import { parseExportFormat, type ExportRow } from '@brand/shared/export';
import type { ConsoleDeps } from '../../consoleDeps';
import { sendExport } from '../../http/exportResponse';
import { asRefusal, filterQuery, queryFields } from '../../http/queryFields';
import { freshAssertion, memberOf, viewerOf } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { activitySources, tolerant } from './activitySources';
import { inPlainWords } from './refusalWords';
import { ActivityPage } from './view';

const PAGE = 50;
/** Rows read from each service per round of an export (the services' maximum page). */
const EXPORT_PAGE = 200;
const FIELDS = ['actor', 'action', 'subject_id', 'since', 'until', 'cursor'] as const;
const COLUMNS = [
  'created_at',
  'actor_email',
  'actor_member_id',
  'action',
  'subject_id',
  'summary',
  'id',
  'client_address',
  'user_agent',
] as const;

const filtersOf = (q: Record<(typeof FIELDS)[number], string>): ActivityFilterFields => ({
  actor: q.actor,
  action: q.action,
  subject_id: q.subject_id,
  since: q.since,
  until: q.until,
});

/**
 * The shared check of a listing: its filters, and its cursor is one of this brand's listing;
 * a refusal in the page's words (refusalWords.ts), not the shared parser's field paths.
 */
function listingOf(q: Record<(typeof FIELDS)[number], string>, brandId: string) {
  return inPlainWords(() => {
    const parsed = { brandId, filters: parseActivityFilters(q) };
    if (q.cursor !== '') decodeActivityCursor(parsed, q.cursor);
    return parsed;
  });
}

/**
 * The export's query string read and checked (400 in words for a bad one: never sent on as
 * is). A cursor must be one of this brand's listing with these filters (invalid_cursor otherwise).
 */
function activityQuery(query: Record<string, unknown>, brandId: string) {
  const q = queryFields(query, FIELDS);
  const listing = asRefusal(() => listingOf(q, brandId));
  return { filters: filtersOf(q), cursor: q.cursor, listing };
}

/**
 * The brand's audit log: records (keys, members, sign-ins), webhooks (receivers, deliveries)
 * and plans each keep their own; the page merges them newest first (mergeActivity), filtered
 * by actor, action, subject and time, paged by one cursor all three understand. A service
 * that does not answer leaves its part out of the page and the page says so; the export
 * (CSV or JSON Lines, streamed, at most EXPORT_MAX_ROWS) then fails instead.
 */
export function registerActivity(router: Router, deps: ConsoleDeps): void {
  router.get('/activity', async (req, res) => {
    const s = memberOf(res);
    // a refused filter: the page as typed with why (400), nothing listed, nothing to export
    const { fields, refusal } = filterQuery(req.query, FIELDS, (q) => listingOf(q, s.brand.id));
    const filters = filtersOf(fields);
    const cursor = refusal ? '' : fields.cursor;
    const unavailable: string[] = [];
    const sources = activitySources(deps, () => Promise.resolve(s.assertion)).map((n) =>
      tolerant(n, unavailable),
    );
    const page = refusal
      ? { entries: [], next_cursor: '' }
      : await mergedActivityPage(sources, {
          brand_id: s.brand.id,
          cursor,
          limit: PAGE,
          ...filters,
        });
    if (refusal) res.setHeader('X-Console-Error', refusal.code);
    sendPage(
      res,
      ActivityPage({
        viewer: viewerOf(s),
        entries: page.entries,
        nextCursor: page.next_cursor,
        paged: cursor !== '',
        filters,
        unavailable,
        refused: refusal?.message,
      }),
      refusal ? 400 : 200,
    );
  });

  router.get('/activity/export', async (req, res) => {
    const s = memberOf(res);
    const format = asRefusal(() => parseExportFormat(queryFields(req.query, ['format']).format));
    const { filters, cursor, listing } = activityQuery(req.query, s.brand.id);
    const entries = mergeActivity(
      activitySources(deps, freshAssertion(deps.clients, s)).map((n) => n.source),
      { brand_id: s.brand.id, cursor, pageSize: EXPORT_PAGE, ...filters },
    );
    await sendExport(res, deps.log, {
      brandId: s.brand.id,
      name: `activity-${s.brand.id}`,
      format,
      columns: COLUMNS,
      rows: asRows(entries),
      cursorAfter: (row) =>
        encodeActivityCursor(listing, { created_at: String(row.created_at), id: String(row.id) }),
    });
  });
}

async function* asRows(entries: AsyncGenerator<ActivityEntry>): AsyncGenerator<ExportRow> {
  for await (const e of entries) {
    yield Object.fromEntries(COLUMNS.map((c) => [c, e[c]]));
  }
}
