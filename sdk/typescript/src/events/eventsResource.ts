import { RateLimitedError } from '../errors/codeErrors.js';
import { pageShape } from '../http/responseShape.js';
import { checkTypes, timeParam } from '../optionChecks.js';
import type { RequestSpec, Transport } from '../http/transport.js';
import type {
  EventsEnvelope,
  EventsListParams,
  EventsPage,
  EventsPollResult,
  FeedEvent,
} from './eventTypes.js';
import { followFeed, type FollowOptions } from './follower.js';

const PAGE_SHAPE = pageShape({ itemIds: true });
/** Pages read after a position carry the position to read on from. */
const PAGE_AFTER_SHAPE = pageShape({ itemIds: true, nextAfter: true });

/** The walk's default page size: the API's maximum, so a walk spends the fewest requests. */
const WALK_PAGE_SIZE = 200;
/** How many 429s in a row one page of a walk waits out after the transport's own retries. */
const WALK_RATE_LIMIT_WAITS = 5;

/**
 * The events feed (GET /api/v1/events, docs/api.md "Events"): `list` for one page, `all` to
 * walk every event newest first, `poll` for a conditional page, and `follow` for an
 * integration that reads on from a stored position and hands each event to a callback once.
 */
export class EventsResource {
  constructor(private readonly transport: Transport) {}

  /** One page: newest first (with `cursor`), or oldest first after `after`. */
  async list(params: EventsListParams = {}): Promise<EventsPage> {
    const { body, meta } = await this.transport.request<EventsEnvelope>(this.pageRequest(params));
    return { ...body, meta };
  }

  /**
   * One page, conditionally: with the `etag` of the page you hold, NotModified (HTTP 304)
   * while the brand has no new event, decided by the API without reading the feed.
   */
  async poll(params: EventsListParams = {}): Promise<EventsPollResult> {
    const { body, meta } = await this.transport.request<EventsEnvelope | undefined>({
      ...this.pageRequest(params),
      notModifiedIsResult: true,
    });
    if (body === undefined) return { notModified: true, meta };
    return Object.assign({ ...body, meta }, { notModified: false as const });
  }

  /**
   * Every event newest first (or oldest first after `after`), following `next_cursor` (or
   * `next_after`) page by page, each once: `for await (const e of client.events.all({ types: ['payout.paid'] }))`.
   * A 429 on a page is waited out and the page asked again.
   */
  async *all(params: Omit<EventsListParams, 'etag'> = {}): AsyncGenerator<FeedEvent, void> {
    const limit = params.limit ?? WALK_PAGE_SIZE;
    let at: Omit<EventsListParams, 'etag'> = { ...params, limit };
    for (;;) {
      const page = await this.listThroughRateLimits(at);
      yield* page.data;
      if (page.data.length < limit) return;
      if (params.after !== undefined) at = { ...at, after: page.next_after };
      else if (page.next_cursor !== undefined) at = { ...at, cursor: page.next_cursor };
      else return;
    }
  }

  /**
   * Follows the feed until `signal` aborts: reads on from `options.from` (a stored
   * FollowCheckpoint), hands each event to `onEvent` once and in feed order, then
   * `onCheckpoint` with the checkpoint to store; polls with If-None-Match every
   * `intervalMs` while nothing is new. See follower.ts for the rules; resolves when aborted,
   * rejects with CursorExpiredError when the stored position is older than the kept history,
   * or with what a callback threw.
   */
  follow(options: FollowOptions): Promise<void> {
    return followFeed(this, this.transport, options);
  }

  private async listThroughRateLimits(params: EventsListParams): Promise<EventsPage> {
    for (let waits = 0; ; waits++) {
      try {
        return await this.list(params);
      } catch (error) {
        if (!(error instanceof RateLimitedError) || waits >= WALK_RATE_LIMIT_WAITS) throw error;
        // Retry-After is the earliest moment a request can pass (one second when missing); one
        // beyond maxRetryAfterSeconds is thrown at once, as the client's own retries do.
        const ms = this.transport.retryAfterWaitMs(error.retryAfterSeconds);
        if (ms === undefined) throw error;
        await this.transport.pause(ms, params.signal);
      }
    }
  }

  private pageRequest(params: EventsListParams): RequestSpec {
    checkTypes(params.types, 'events.list');
    return {
      method: 'GET',
      path: '/api/v1/events',
      query: {
        limit: params.limit === undefined ? undefined : String(params.limit),
        cursor: params.cursor,
        after: params.after === undefined ? undefined : String(params.after),
        type: params.types && params.types.length > 0 ? params.types.join(',') : undefined,
        record_id: params.recordId,
        since: timeParam(params.since, 'since', 'events.list'),
        until: timeParam(params.until, 'until', 'events.list'),
      },
      idempotent: true,
      shape: params.after === undefined ? PAGE_SHAPE : PAGE_AFTER_SHAPE,
      ...(params.etag === undefined ? {} : { headers: { 'If-None-Match': params.etag } }),
      signal: params.signal,
    };
  }
}
