import type { Command } from 'commander';
import type { ActivityEntry } from '@brand/proto/activity/v1';
import {
  encodeActivityCursor,
  mergeActivity,
  mergedActivityPage,
  parseActivityFilters,
  type ActivitySource,
} from '@brand/shared/activity';
import type { Backend } from '../client';
import { addExportOptions, collectAll, exportToStdout, parseLimit } from '../exportArgs';
import { formatTable } from '../output';
import { defineCommand, runCommand } from '../run';

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
];

interface ActivityOptions {
  brand: string;
  actor?: string;
  action?: string;
  subject?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: string;
  all?: boolean;
  format?: 'csv' | 'jsonl';
}

/** The three services' ListActivity (records, webhooks, plans), merged as the console merges them. */
function sources(backend: Backend): ActivitySource[] {
  return [
    (req) => backend.access('listActivity', req),
    (req) => backend.webhooks('listActivity', req),
    (req) => backend.plans('listActivity', req),
  ];
}

const rowOf = (e: ActivityEntry) => [
  e.created_at,
  e.actor_email,
  e.action,
  e.subject_id,
  e.summary,
];

/**
 * brandctl activity --brand: the brand's audit log across records, webhooks and plans, newest
 * first, with the console's filters; one page (--limit, --cursor), every page (--all), or an
 * export of the whole range to stdout (--format csv|jsonl).
 */
export function registerActivityCommand(program: Command): void {
  const cmd = defineCommand(
    program,
    'activity',
    "A brand's audit log (keys, members, sign-ins, receivers, deliveries, plans), newest first.",
    [
      'brandctl activity --brand br_123',
      'brandctl activity --brand br_123 --actor ann@example.com --action key. --since 2026-11-01',
      'brandctl activity --brand br_123 --since 2026-11-01 --format csv > activity.csv',
    ],
  )
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .option('--actor <actor>', 'who acted: a member id (mem_...), an email, or "operator"')
    .option('--action <action>', 'one action (key.created) or every action of a kind (key.)')
    .option('--subject <id>', 'what it was about (key_..., rcv_..., mem_..., pln_...)')
    .option(
      '--since <time>',
      'from this time (inclusive; 2026-11-25 or RFC 3339, UTC if no offset)',
    )
    .option('--until <time>', 'before this time (exclusive)')
    .option('--limit <n>', 'entries per page (1..199)', parseLimit, 50);
  addExportOptions(cmd).action((opts: ActivityOptions, c: Command) =>
    runCommand(c, async ({ backend, notice }) => {
      const query = {
        brand_id: opts.brand,
        actor: opts.actor ?? '',
        action: opts.action ?? '',
        subject_id: opts.subject ?? '',
        since: opts.since ?? '',
        until: opts.until ?? '',
        cursor: opts.cursor ?? '',
      };
      if (opts.format) {
        const walk = mergeActivity(sources(backend), { ...query, pageSize: 200 });
        return exportToStdout({
          format: opts.format,
          columns: COLUMNS,
          rows: (async function* () {
            for await (const e of walk) yield { ...e };
          })(),
          cursorAfter: (r) =>
            encodeActivityCursor(
              { brandId: query.brand_id, filters: parseActivityFilters(query) },
              { created_at: String(r.created_at), id: String(r.id) },
            ),
          notice,
        });
      }
      const page = opts.all
        ? {
            entries: await collectAll(
              mergeActivity(sources(backend), { ...query, pageSize: 200 }),
              notice,
            ),
            next_cursor: '',
          }
        : await mergedActivityPage(sources(backend), { ...query, limit: opts.limit });
      const more = page.next_cursor ? `\n\nMore: --cursor ${page.next_cursor}` : '';
      return {
        json: { entries: page.entries, next_cursor: page.next_cursor },
        human:
          page.entries.length === 0
            ? 'No activity matches.'
            : `${formatTable(['TIME', 'WHO', 'ACTION', 'SUBJECT', 'SUMMARY'], page.entries.map(rowOf))}${more}`,
      };
    }),
  );
}
