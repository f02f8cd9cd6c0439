import { Option, type Command } from 'commander';
import {
  UsageSurface,
  type GetUsageResponse,
  type RequestLogEntry,
} from '@brand/proto/access/v1/usage';
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

  defineCommand(
    program,
    'requests',
    "A brand's refused and failed requests, newest first, with the reason behind each 401.",
    [
      'brandctl requests --brand br_123',
      'brandctl requests --brand br_123 --key key_123 --code invalid_key',
    ],
  )
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .option(
      '--key <keyId>',
      'only this key (key_...), or "none" for requests without a key of the brand',
    )
    .option('--code <code>', 'only this error code, e.g. invalid_key')
    .option('--limit <n>', 'how many (1..200)', '50')
    .option('--page <token>', 'the next page (from the previous output)')
    .action(
      (
        opts: { brand: string; key?: string; code?: string; limit: string; page?: string },
        cmd: Command,
      ) =>
        runCommand(cmd, async ({ backend }) => {
          const res = await backend.usage('listRequestLog', {
            brand_id: opts.brand,
            key_id: opts.key ?? '',
            error_code: opts.code ?? '',
            page_size: Number(opts.limit),
            page_token: opts.page ?? '',
          });
          const bound = `The log keeps ${res.retention_days} days, at most the newest ${res.bound} requests of the brand.`;
          const more = res.next_page_token ? `\n\nMore: --page ${res.next_page_token}` : '';
          return {
            json: {
              entries: res.entries.map(entryJson),
              next_page_token: res.next_page_token,
              bound: res.bound,
              retention_days: res.retention_days,
            },
            human:
              res.entries.length === 0
                ? `Nothing refused or failed. ${bound}`
                : `${formatTable(['TIME', 'KEY', 'REQUEST', 'STATUS', 'CODE', 'REQUEST ID', 'REASON'], res.entries.map(entryRow))}\n\n${bound}${more}`,
          };
        }),
    );
}
