import type { Command } from 'commander';
import {
  ApiError,
  BrandRecords,
  checkpointAfterPage,
  ConnectionError,
  TimeoutError,
  type FollowCheckpoint,
} from '@brand-records/client';
import {
  CheckpointLockedError,
  CheckpointLockLostError,
} from '@brand-records/client/checkpoint-file';
import { AppError, isErrorCode } from '@brand/shared/errors';
import type { Backend } from '../client';
import type { Rendered } from '../output';
import { onWebhooks, runReported, type ReportContext } from '../run';
import { secretFromFile } from '../settings';
import { apiUrlProblem } from './apiUrl';
import { feedRequest, type FeedFilters } from './eventsFeedRequest';
import { openPosition, type Position, type PositionFilters } from './followPosition';
import { OutageWatch, pause, readWaitingOut } from './followWaitOut';

export interface FollowOptions extends FeedFilters {
  brand?: string;
  key?: string;
  keyFile?: string;
  url?: string;
  after?: number;
  checkpoint?: string;
  interval: number;
}

/** The local stack's gateway, where an API key is sent without --url or BRAND_RECORDS_URL. */
const LOCAL_API_URL = 'http://127.0.0.1:8080';

/** The events printed and the position stored last, for the summary. */
interface Progress {
  printed: number;
  stored: FollowCheckpoint;
}

/** One follow as either transport runs it: what to read, where it stands, when to stop. */
interface FollowRun {
  opts: FollowOptions;
  position: Position;
  progress: Progress;
  signal: AbortSignal;
  notice: (text: string) => void;
}

/** Stops on SIGINT or SIGTERM; the signal handlers go once the follow ends. */
function stopOnSignals(): { signal: AbortSignal; release: () => void } {
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  return {
    signal: stop.signal,
    release: () => {
      process.off('SIGINT', abort);
      process.off('SIGTERM', abort);
    },
  };
}

/** One event on stdout: one JSON line, nothing else ever goes there. */
const printLine = (json: string): void => void process.stdout.write(`${json}\n`);

/**
 * Follows over the admin token (the webhooks service's EventsFeedService): each page after the
 * stored position, oldest first, skipping the ids already handled there; the position after
 * each event, and after each page, is stored (checkpointAfterPage: handled ids beyond a page,
 * stored by a run with a larger --limit, stay until a page holds them). UNAVAILABLE (the service
 * restarting), DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED are waited out (readWaitingOut).
 */
async function followOverAdmin(
  backend: Backend,
  target: { brandId: string; address: string },
  run: FollowRun,
): Promise<void> {
  const { opts, position, progress, signal, notice } = run;
  const waitOut = {
    intervalMs: opts.interval,
    signal,
    notice,
    peer: `the webhooks service at ${target.address}`,
    position: () => progress.stored.after,
  };
  while (!signal.aborted) {
    const at = progress.stored;
    const page = await readWaitingOut(
      () =>
        backend.eventsFeed(
          'listFeedEvents',
          feedRequest(target.brandId, opts, { forward: true, after: at.after }),
        ),
      waitOut,
    );
    if (page === undefined) return;
    const handled = new Set(at.handled);
    const ids: string[] = [];
    for (const text of page.events_json) {
      const { id } = JSON.parse(text) as { id: string };
      ids.push(id);
      if (handled.has(id)) continue;
      if (signal.aborted) return;
      printLine(text);
      progress.printed++;
      progress.stored = { after: at.after, handled: [...progress.stored.handled, id] };
      await position.save(progress.stored);
    }
    const next = checkpointAfterPage(progress.stored, {
      ids,
      nextAfter: page.next_after,
      full: page.events_json.length >= opts.limit,
    });
    if (next.after !== at.after || next.handled.length !== progress.stored.handled.length) {
      progress.stored = next;
      await position.save(progress.stored);
      if (next.after !== at.after) notice(`position ${page.next_after}`);
    }
    if (page.events_json.length < opts.limit) await pause(opts.interval, signal);
  }
}

/** What a failed read of the API answered, for the wait lines: "503 service_unavailable". */
function apiAnswerName(err: unknown): string {
  if (err instanceof ApiError) return `${err.status} ${err.code}`;
  if (err instanceof ConnectionError) return 'no connection';
  return err instanceof Error ? err.name : 'a failure';
}

/**
 * Follows over the public API with an API key (`GET /api/v1/events?after=`, what an
 * integration behind a firewall can reach): the client's follower, which waits out 429, 503,
 * a proxy's 502 and 504 and a lost connection (each wait said on stderr, and the follow ended
 * after five minutes of them in a row, as over the admin token), polls with If-None-Match at
 * the head and hands each event over once.
 */
async function followOverApi(client: BrandRecords, url: string, run: FollowRun): Promise<void> {
  const { opts, position, progress, signal, notice } = run;
  const watch = new OutageWatch({
    notice,
    peer: `the API at ${url}`,
    position: () => progress.stored.after,
  });
  await client.events.follow({
    from: position.from,
    limit: opts.limit,
    intervalMs: opts.interval,
    types: opts.type,
    recordId: opts.record,
    since: opts.since,
    until: opts.until,
    signal,
    onEvent: (event) => {
      position.checkBrand(event.brand_id);
      printLine(JSON.stringify(event));
      progress.printed++;
    },
    onWait: ({ error, failures, waitMs }) =>
      watch.waiting(error, apiAnswerName(error), failures, waitMs),
    onCheckpoint: async (checkpoint) => {
      const moved = checkpoint.after !== progress.stored.after;
      progress.stored = checkpoint;
      await position.save(checkpoint);
      if (moved) notice(`position ${checkpoint.after}`);
    },
  });
}

/** The client's errors as brandctl reports every refusal (code, message, exit code). */
function asAppError(err: unknown, url: string): unknown {
  if (err instanceof ApiError) {
    return new AppError(isErrorCode(err.code) ? err.code : 'internal_error', err.message, {
      details: err.details,
    });
  }
  if (err instanceof ConnectionError || err instanceof TimeoutError)
    return new AppError('service_unavailable', `cannot reach the API at ${url}: ${err.message}`);
  if (err instanceof CheckpointLockedError || err instanceof CheckpointLockLostError)
    return new AppError('precondition_failed', err.message);
  return err;
}

/** The filters a stored position depends on, as the file records them. */
function positionFilters(opts: FollowOptions): PositionFilters {
  const filters: PositionFilters = {};
  if (opts.type !== undefined && opts.type.length > 0)
    filters.type = [...opts.type].sort().join(',');
  if (opts.record !== undefined) filters.record = opts.record;
  if (opts.since !== undefined) filters.since = opts.since;
  return filters;
}

/** Follows until a signal, then says on stderr how many events it printed and where to read on. */
async function follow(
  ctx: ReportContext,
  opts: FollowOptions,
  url: string,
  over: (run: FollowRun) => Promise<void>,
): Promise<Rendered> {
  let position: Position | undefined;
  const { signal, release } = stopOnSignals();
  try {
    position = await openPosition({ ...opts, filters: positionFilters(opts) }, ctx.notice);
    const progress: Progress = { printed: 0, stored: position.from };
    ctx.notice(`Following from position ${position.from.after}; Ctrl-C stops.`);
    await over({ opts, position, progress, signal, notice: ctx.notice });
    const after = progress.stored.after;
    ctx.notice(
      `Stopped after ${progress.printed} events at position ${after}; ${position.readOnHint(after)}.`,
    );
    return {
      json: { printed: progress.printed, next_after: after },
      human: '',
      streamed: true,
    };
  } catch (err) {
    throw asAppError(err, url);
  } finally {
    release();
    await position?.close();
  }
}

/**
 * brandctl events follow: with --brand, over the admin token (the webhooks service); with an
 * API key (--key or BRAND_RECORDS_KEY), over the public API at --url (BRAND_RECORDS_URL), as
 * the brand's integration reads it. Prints each event as one JSON line on stdout and
 * everything else (positions, the summary, refusals) on stderr, so `> events.jsonl` holds
 * events only.
 */
/** The API key in --key-file's file ("-": standard input), kept off the command line. */
function keyFromFile(path: string | undefined, cmd: Command): string | undefined {
  try {
    return secretFromFile(path);
  } catch (err) {
    return cmd.error(`error: --key-file: ${(err as Error).message}`);
  }
}

export function followAction(opts: FollowOptions, cmd: Command): Promise<void> {
  if (opts.key !== undefined && opts.keyFile !== undefined)
    cmd.error('error: give --key or --key-file, not both');
  const given = opts.key ?? keyFromFile(opts.keyFile, cmd);
  const key = given ?? (opts.brand === undefined ? process.env.BRAND_RECORDS_KEY : undefined);
  if (opts.brand !== undefined && given !== undefined)
    cmd.error(
      'error: give --brand (with the admin token) or --key, not both: a key selects its brand',
    );
  if (opts.brand !== undefined) {
    const brandId = opts.brand;
    return onWebhooks(cmd, (ctx) =>
      follow(ctx, opts, ctx.settings.webhooksAddr, (run) =>
        followOverAdmin(ctx.backend, { brandId, address: ctx.settings.webhooksAddr }, run),
      ),
    );
  }
  if (key === undefined || key === '')
    cmd.error(
      'error: give --brand <id> (with the admin token) or an API key (--key, or BRAND_RECORDS_KEY)',
    );
  const url = opts.url ?? process.env.BRAND_RECORDS_URL ?? LOCAL_API_URL;
  const problem = apiUrlProblem(url);
  if (problem !== undefined) cmd.error(`error: ${problem}`);
  const client = new BrandRecords({ apiKey: key, baseUrl: url });
  return runReported(
    cmd,
    (ctx) => follow(ctx, opts, url, (run) => followOverApi(client, url, run)),
    {
      address: url,
      timeoutMs: 30_000,
      service: 'gateway',
    },
  );
}
