import { Option, type Command } from 'commander';
import {
  UsageSurface,
  type GetUsageResponse,
  type ListRequestLogRequest,
  type ListRequestLogResponse,
  type RequestLogEntry,
} from '@brand/proto/access/v1/usage';
import { addExportOptions, collectAll, exportToStdout, parseLimit } from '../exportArgs';
import { formatTable } from '../output';
import { defineCommand, runCommand } from '../run';

const surfaceName = (s: UsageSurface) =>
  s === UsageSurface.USAGE_SURFACE_ASSISTANT ? 'assistant' : 'rest';

/** `key usage`: totals per key, surface and outcome over the window, then the budget. */
function usageText(u: GetUsageResponse): string {
  const per = u.bucket_seconds === 60 ? 'minute' : 'hour';
  const head = `Usage of ${u.brand_id} over the last ${u.window === '24h' ? '24 hours' : '7 days'} (per ${per}); budget ${u.limit_per_minute} requests a minute, shared by every key.`;
  if (u.keys.length === 0) return `${head}\n\nNo requests in this window.`;
  const rows = u.keys.map((k) => [
    k.key_id === '' ? '(no key of this brand)' : `${k.name} ${k.key_id}`,
    surfaceName(k.surface),
    k.outcome,
    String(k.count),
  ]);
  const peak = new Map<string, number>();
  for (const b of u.buckets) peak.set(b.start, (peak.get(b.start) ?? 0) + b.count);
  const busiest = [...peak.entries()].sort((a, b) => b[1] - a[1])[0];
  const tail = busiest ? `\n\nBusiest ${per}: ${busiest[0]} with ${busiest[1]} requests.` : '';
  return `${head}\n\n${formatTable(['KEY', 'SURFACE', 'OUTCOME', 'REQUESTS'], rows)}${tail}`;
}

function usageJson(u: GetUsageResponse) {
  return {
    brand_id: u.brand_id,
    window: u.window,
    bucket_seconds: u.bucket_seconds,
    from: u.from,
    limit_per_minute: u.limit_per_minute,
    keys: u.keys.map((k) => ({ ...k, surface: surfaceName(k.surface) })),
    buckets: u.buckets.map((b) => ({ ...b, surface: surfaceName(b.surface) })),
  };
}

const entryJson = (e: RequestLogEntry) => ({ ...e, surface: surfaceName(e.surface) });

/** One line of the request log; the reason (operators see it) in words. */
function entryRow(e: RequestLogEntry): string[] {
  const reason =
    e.reason === 'revoked'
      ? `revoked ${e.reason_at} by ${e.reason_by}`
      : e.reason === 'expired'
        ? `expired ${e.reason_at}`
        : e.reason;
  return [
    e.at,
    e.key_id === '' ? '(none)' : `${e.key_name} ${e.key_prefix}…`,
    `${e.method} ${e.path}`,
    String(e.status),
    e.error_code,
    e.request_id,
    reason,
  ];
}

/**
 * brandctl key usage [<keyId>] [--brand] and brandctl requests --brand: usage counts and the
 * request log for operators (issue 26), the same RPCs the console reads. The `key` group is
 * brandctl key's (commands/key.ts); this adds its `usage` command.
 */
export function registerUsageCommands(program: Command): void {
  const key = program.commands.find((c) => c.name() === 'key');
  if (!key) throw new Error('registerUsageCommands runs after registerKeyCommands');
  defineCommand(
    key,
    'usage [keyId]',
    "A key's (or the brand's) requests by surface and outcome, with the budget.",
    ['brandctl key usage key_123', 'brandctl key usage --brand br_123 --window 7d'],
  )
    .option('--brand <brandId>', 'the whole brand (br_...), or the brand the key must belong to')
    .addOption(
      new Option('--window <window>', 'last 24 hours per minute, or 7 days per hour')
        .choices(['24h', '7d'])
        .default('24h'),
    )
    .action((keyId: string | undefined, opts: { brand?: string; window: string }, cmd: Command) =>
      runCommand(cmd, async ({ backend }) => {
        if (!keyId && !opts.brand)
          throw new Error('name a key (key_...) or a brand (--brand br_...)');
        const u = await backend.usage('getUsage', {
          brand_id: opts.brand ?? '',
          key_id: keyId ?? '',
          window: opts.window,
        });
        return { json: usageJson(u), human: usageText(u) };
      }),
    );

  const requests = defineCommand(
    program,
    'requests',
    "A brand's refused and failed requests, newest first, with the reason behind each 401.",
    [
      'brandctl requests --brand br_123',
      'brandctl requests --brand br_123 --key key_123 --code invalid_key --since 2026-11-24',
      'brandctl requests --brand br_123 --since 2026-11-24 --format jsonl > requests.jsonl',
    ],
  )
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .option(
      '--key <keyId>',
      'only this key (key_...), or "none" for requests without a key of the brand',
    )
    .option('--code <code>', 'only this error code, e.g. invalid_key')
    .option(
      '--since <time>',
      'from this time (inclusive; 2026-11-25 or RFC 3339, UTC if no offset)',
    )
    .option('--until <time>', 'before this time (exclusive)')
    .option('--limit <n>', 'how many (1..199)', parseLimit, 50)
    .option('--page <token>', 'the next page (from the previous output); the same as --cursor');
  addExportOptions(requests).action((opts: RequestsOptions, cmd: Command) =>
    runCommand(cmd, async ({ backend, notice }) => {
      const request = {
        brand_id: opts.brand,
        key_id: opts.key ?? '',
        error_code: opts.code ?? '',
        page_token: opts.cursor ?? opts.page ?? '',
        since: opts.since ?? '',
        until: opts.until ?? '',
      };
      const list = (r: ListRequestLogRequest) => backend.usage('listRequestLog', r);
      if (opts.format) {
        const reasons = [...REQUEST_COLUMNS, 'reason', 'reason_at', 'reason_by'];
        return exportToStdout({
          format: opts.format,
          columns: reasons,
          rows: (async function* () {
            for await (const e of walkRequestLog(list, request)) yield entryJson(e);
          })(),
          cursorAfter: (r) => `${String(r.at)}~${String(r.id)}`,
          notice,
        });
      }
      const res = await list({ ...request, page_size: opts.limit });
      const entries = opts.all
        ? await collectAll(walkRequestLog(list, request), notice)
        : res.entries;
      const next = opts.all ? '' : res.next_page_token;
      const bound = `The log keeps ${res.retention_days} days, at most the newest ${res.bound} requests of the brand.`;
      const more = next ? `\n\nMore: --cursor ${next}` : '';
      return {
        json: {
          entries: entries.map(entryJson),
          next_page_token: next,
          next_cursor: next,
          bound: res.bound,
          retention_days: res.retention_days,
        },
        human:
          entries.length === 0
            ? `Nothing refused or failed. ${bound}`
            : `${formatTable(['TIME', 'KEY', 'REQUEST', 'STATUS', 'CODE', 'REQUEST ID', 'REASON'], entries.map(entryRow))}\n\n${bound}${more}`,
      };
    }),
  );
}

const REQUEST_COLUMNS = [
  'at',
  'method',
  'path',
  'status',
  'error_code',
  'request_id',
  'key_id',
  'key_name',
  'key_prefix',
  'surface',
  'id',
  // where the request came from (issue 63)
  'client_address',
];

interface RequestsOptions {
  brand: string;
  key?: string;
  code?: string;
  since?: string;
  until?: string;
  limit: number;
  page?: string;
  cursor?: string;
  all?: boolean;
  format?: 'csv' | 'jsonl';
}

/** Every entry of the filtered log from the request's page_token on, 200 a page. */
async function* walkRequestLog(
  list: (r: ListRequestLogRequest) => Promise<ListRequestLogResponse>,
  request: Omit<ListRequestLogRequest, 'page_size'>,
): AsyncGenerator<RequestLogEntry> {
  let token = request.page_token;
  do {
    const page = await list({ ...request, page_size: 200, page_token: token });
    yield* page.entries;
    token = page.next_page_token;
  } while (token !== '');
}
