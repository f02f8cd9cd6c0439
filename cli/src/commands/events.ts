import { InvalidArgumentError, type Command } from 'commander';
import type { ListFeedEventsRequest } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { parseEventTypes, parseLimit, parseSince } from '../args';
import type { Backend } from '../client';
import { formatTable } from '../output';
import { defineCommand, defineGroup, runCommand } from '../run';

interface FeedOptions {
  brand: string;
  type?: EventTypeName[];
  record?: string;
  since?: string;
  until?: string;
  limit: number;
}

interface ListOptions extends FeedOptions {
  cursor?: string;
  after?: number;
}

interface FollowOptions extends FeedOptions {
  after: number;
  interval: number;
}

/** --after: a feed position, a whole number 0 or more. */
function parsePosition(value: string): number {
  if (!/^(0|[1-9][0-9]{0,14})$/.test(value))
    throw new InvalidArgumentError('must be a feed position (a whole number, 0 or more).');
  return Number(value);
}

function request(opts: FeedOptions, page: Partial<ListFeedEventsRequest>): ListFeedEventsRequest {
  return {
    brand_id: opts.brand,
    limit: opts.limit,
    cursor: '',
    forward: false,
    after: 0,
    types: (opts.type ?? []).map((t) => EVENT_TYPES.toProto(t)),
    record_id: opts.record ?? '',
    since: opts.since ?? '',
    until: opts.until ?? '',
    // one JSON text per event (events_json): each is printed on its own
    as_data_json: false,
    ...page,
  };
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function addFeedOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--brand <brandId>', 'the brand (br_...)')
    .option('--type <types>', 'only these event types (comma-separated)', parseEventTypes)
    .option('--record <id>', 'only events about this record (po_..., sub_..., cmp_...)')
    .option('--since <time>', 'created after this time (2026-11-25 or RFC 3339)', (v) =>
      parseSince(v),
    )
    .option('--until <time>', 'created before this time', (v) => parseSince(v))
    .option('--limit <n>', 'events per page (1..200)', parseLimit, 50);
}

/**
 * brandctl events list|follow --brand: the brand's events feed (docs/api.md "Events"), the
 * operator's view of what `GET /api/v1/events` answers the brand's integrations: one page
 * newest first (--cursor) or oldest first after a position (--after); or follow it, printing
 * each new event as a JSON line (the receiver's body) until interrupted.
 */
export function registerEventsCommands(program: Command): void {
  const group = defineGroup(program, 'events', "A brand's business events feed.", [
    'brandctl events list --brand br_123 --type payout.paid',
    'brandctl events follow --brand br_123 --after 0',
  ]);
  addFeedOptions(
    defineCommand(group, 'list', 'One page of the feed, newest first (or after a position).', [
      'brandctl events list --brand br_123',
      'brandctl events list --brand br_123 --after 120 --json',
    ]),
  )
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--after <position>', 'oldest first after this feed position', parsePosition)
    .action((opts: ListOptions, c: Command) =>
      runCommand(c, async ({ backend }) => {
        const forward = opts.after !== undefined;
        const page = await backend.eventsFeed(
          'listFeedEvents',
          request(opts, { cursor: opts.cursor ?? '', forward, after: opts.after ?? 0 }),
        );
        const events = page.events_json.map((text) => JSON.parse(text) as ParsedEvent);
        const more = forward
          ? `\n\nRead on: --after ${page.next_after}`
          : page.next_cursor
            ? `\n\nMore: --cursor ${page.next_cursor}`
            : '';
        return {
          json: {
            events,
            ...(forward ? { next_after: page.next_after } : { next_cursor: page.next_cursor }),
          },
          human:
            events.length === 0
              ? 'No events match.'
              : `${formatTable(['TIME', 'TYPE', 'RECORD', 'STATUS', 'ID'], events.map(rowOf))}${more}`,
        };
      }),
    );

  addFeedOptions(
    defineCommand(
      group,
      'follow',
      'Print every event after a position as a JSON line, then each new one, until Ctrl-C.',
      ['brandctl events follow --brand br_123 --after 0 > events.jsonl'],
    ),
  )
    .option(
      '--after <position>',
      'start after this feed position (0: the oldest kept)',
      parsePosition,
      0,
    )
    .option('--interval <ms>', 'wait between polls while nothing is new', parseInterval, 2000)
    .action((opts: FollowOptions, c: Command) =>
      runCommand(c, async ({ backend, notice }) => followFeed(backend, opts, notice)),
    );
}

/** The follow loop: stdout gets the events (JSON lines), stderr the position after each page. */
async function followFeed(
  backend: Backend,
  opts: FollowOptions,
  notice: (text: string) => void,
): Promise<{ json: unknown; human: string }> {
  let after = opts.after;
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let printed = 0;
  try {
    while (!stopped) {
      const page = await backend.eventsFeed(
        'listFeedEvents',
        request(opts, { forward: true, after }),
      );
      for (const text of page.events_json) process.stdout.write(`${text}\n`);
      printed += page.events_json.length;
      if (page.next_after !== after) notice(`position ${page.next_after}`);
      after = page.next_after;
      if (page.events_json.length < opts.limit) await sleep(opts.interval);
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  return {
    json: { printed, next_after: after },
    human: `Stopped after ${printed} events; read on with --after ${after}.`,
  };
}
