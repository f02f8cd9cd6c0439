import { Option, type Command } from 'commander';
import { parseLimit } from '../args';
import { formatTable, shortTime } from '../output';
import { defineCommand, runCommand } from '../run';

/**
 * brandctl submission list: a brand's submissions, newest first, by status; `--status
 * pending` is what waits for an operator's approve or reject.
 */
export function registerSubmissionList(submission: Command): void {
  defineCommand(
    submission,
    'list',
    "List a brand's submissions, newest first; --status pending shows what waits for review.",
    [
      'brandctl submission list --brand br_123 --status pending',
      'brandctl submission list --brand br_123 --limit 200 --json',
    ],
  )
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .addOption(
      new Option('--status <status>', 'only this status').choices([
        'pending',
        'approved',
        'rejected',
      ]),
    )
    .option('--limit <n>', 'how many per page (1-200, default 50)', parseLimit)
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed')
    .action(
      (opts: { brand: string; status?: string; limit?: number; cursor?: string }, cmd: Command) =>
        runCommand(cmd, async ({ backend }) => {
          const page = await backend.records('listSubmissions', {
            brand_id: opts.brand,
            status: opts.status ?? '',
            limit: opts.limit ?? 0,
            cursor: opts.cursor ?? '',
          });
          const rows = page.submissions.map((s) => [
            s.id,
            s.status,
            shortTime(s.created_at),
            s.campaign_id,
            `${s.creator_handle} (${s.platform})`,
            s.content_url,
          ]);
          const more = page.next_cursor
            ? `\nMore: run it again with --cursor ${page.next_cursor}`
            : '';
          return {
            json: { submissions: page.submissions, next_cursor: page.next_cursor || null },
            human:
              (rows.length === 0
                ? `No ${opts.status ?? ''} submissions.`.replace('  ', ' ')
                : formatTable(
                    ['id', 'status', 'created', 'campaign', 'creator', 'content'],
                    rows,
                  )) + more,
          };
        }),
    );
}
