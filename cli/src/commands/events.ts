import { InvalidArgumentError, type Command } from 'commander';
import { parseEventTypes, parseLimit, parseSince } from '../args';
import { formatTable } from '../output';
import { defineCommand, defineGroup, runCommand } from '../run';
import { feedRequest, type FeedFilters } from './eventsFeedRequest';
import { followAction } from './eventsFollow';

interface ListOptions extends FeedFilters {
  brand: string;
  cursor?: string;
  after?: number;
}

/** --after: a feed position, a whole number 0 or more. */
function parsePosition(value: string): number {
  if (!/^(0|[1-9][0-9]{0,14})$/.test(value))
    throw new InvalidArgumentError('must be a feed position (a whole number, 0 or more).');
  return Number(value);
}

interface ParsedEvent {
  id: string;
  type: string;
  created_at: string;
  data: { object: { resource?: string; id?: string; status?: string } };
}

const rowOf = (e: ParsedEvent) => [
  e.created_at,
  e.type,
  `${e.data.object.resource ?? ''} ${e.data.object.id ?? ''}`.trim(),
  e.data.object.status ?? '',
  e.id,
];

/** --interval: milliseconds between polls, 100 to 600000. */
function parseInterval(value: string): number {
  const ms = /^[0-9]{3,6}$/.test(value) ? Number(value) : 0;
  if (ms < 100 || ms > 600_000)
    throw new InvalidArgumentError('must be milliseconds from 100 to 600000.');
  return ms;
}

/** The filters both commands take. */
function addFeedFilters(cmd: Command): Command {
  return cmd
    .option('--type <types>', 'only these event types (comma-separated)', parseEventTypes)
    .option('--record <id>', 'only events about this record (po_..., sub_..., cmp_...)')
    .option('--since <time>', 'created after this time (2026-11-25 or RFC 3339)', (v) =>
      parseSince(v),
    )
    .option('--until <time>', 'created before this time', (v) => parseSince(v))
    .option('--limit <n>', 'events per page (1..200)', parseLimit, 50);
}

/**
 * brandctl events list|follow: the brand's events feed (docs/api.md "Events"), what
 * `GET /api/v1/events` answers the brand's integrations: one page newest first (--cursor) or
 * oldest first after a position (--after), over the admin token; or follow it, printing each
 * event as a JSON line (the receiver's body) until interrupted, over the admin token or with
 * the brand's API key through the public API (eventsFollow.ts).
 */
export function registerEventsCommands(program: Command): void {
  const group = defineGroup(program, 'events', "A brand's business events feed.", [
    'brandctl events list --brand br_123 --type payout.paid',
    'brandctl events follow --brand br_123 --checkpoint events.checkpoint > events.jsonl',
  ]);
  addFeedFilters(
    defineCommand(group, 'list', 'One page of the feed, newest first (or after a position).', [
      'brandctl events list --brand br_123',
      'brandctl events list --brand br_123 --after 120 --json',
    ]),
  )
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--after <position>', 'oldest first after this feed position', parsePosition)
    .action((opts: ListOptions, c: Command) =>
      runCommand(c, async ({ backend }) => {
        const forward = opts.after !== undefined;
        const page = await backend.eventsFeed(
          'listFeedEvents',
          feedRequest(opts.brand, opts, {
            cursor: opts.cursor ?? '',
            forward,
            after: opts.after ?? 0,
          }),
        );
        const events = page.events_json.map((text) => JSON.parse(text) as ParsedEvent);
        const more = forward
          ? `\n\nRead on: --after ${page.next_after} (the head is ${page.feed_version})`
          : page.next_cursor
            ? `\n\nMore: --cursor ${page.next_cursor}`
            : '';
        return {
          json: {
            events,
            ...(forward ? { next_after: page.next_after } : { next_cursor: page.next_cursor }),
            head: page.feed_version,
          },
          human:
            events.length === 0
              ? `No events match.${more}`
              : `${formatTable(['TIME', 'TYPE', 'RECORD', 'STATUS', 'ID'], events.map(rowOf))}${more}`,
        };
      }),
    );

  addFeedFilters(
    defineCommand(
      group,
      'follow',
      'Print every event after a position as one JSON line on stdout, then each new one, until Ctrl-C; positions and the summary go to stderr.',
      [
        'brandctl events follow --brand br_123 --checkpoint events.checkpoint > events.jsonl',
        'BRAND_RECORDS_KEY=bk_live_... brandctl events follow --url https://api.example.com --checkpoint events.checkpoint',
      ],
    ),
  )
    .option('--brand <brandId>', 'the brand, over the admin token (the webhooks service)')
    .option(
      '--key-file <path>',
      'the brand\'s API key instead, read from a file or "-" for stdin (env BRAND_RECORDS_KEY): reads GET /api/v1/events',
    )
    .option(
      '--key <apiKey>',
      'the API key itself: visible in shell history and to every user of this machine; prefer --key-file',
    )
    .option(
      '--url <origin>',
      'the API origin for --key (env BRAND_RECORDS_URL; default the local gateway, http://127.0.0.1:8080)',
    )
    .option(
      '--checkpoint <file>',
      'read on from the position stored in this file, store it after every event, and lock it against a second follower',
    )
    .option(
      '--after <position>',
      'start after this feed position (default 0: the oldest kept; not with an existing --checkpoint file)',
      parsePosition,
    )
    .option('--interval <ms>', 'wait between polls while nothing is new', parseInterval, 2000)
    .action(followAction);
}
