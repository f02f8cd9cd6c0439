import { RateLimitedError } from '../errors/codeErrors.js';
import type { ResponseMeta } from '../responseMeta.js';
import { pageShape } from '../http/responseShape.js';
import { timeParam } from '../optionChecks.js';
import type { RequestSpec, Transport } from '../http/transport.js';
import type { Envelope, RecordsByResource, ResourceName } from './recordTypes.js';
import { retrieveRecord, type RetrieveOptions, type Retrieved } from './retrieveRecord.js';

export interface ListParams {
  /** Page size, 1 to 200 (API default 50). Anything else is an InvalidParameterError. */
  limit?: number;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /**
   * Only records created strictly after this instant (RFC 3339 string or Date); older,
   * superseded by `cursor`. It filters on the timestamp alone: rows sharing the timestamp of a
   * page's last row are skipped (`since` set to that row's `created_at` never returns the other
   * rows created at the same instant). To read every record exactly once, follow `cursor`
   * (or use `all()`/`pages()`, which do).
   */
  since?: string | Date;
  /** Cancels the call, including any wait between retries. */
  signal?: AbortSignal;
}

export interface WalkParams {
  /**
   * Only records created strictly after this instant. The walk itself follows the cursor, so
   * it reads each record after `since` once; but a `since` taken from a record's `created_at`
   * skips the other rows created at that same instant (see ListParams.since).
   */
  since?: string | Date;
  /** Page size of the walk, 1 to 200; default 200, the fewest requests against the budget. */
  limit?: number;
  /** Start after this cursor instead of at the newest record. */
  cursor?: string;
  signal?: AbortSignal;
}

/** One page plus what the response said about itself (status, request id, rate limit, ETag). */
export type Page<R extends ResourceName> = Envelope<R> & { meta: ResponseMeta };

export interface PollParams extends ListParams {
  /** The `meta.etag` of the page you hold: while it is unchanged the answer is NotModified. */
  etag?: string;
}

/** A poll's answer while the page is unchanged (HTTP 304): keep the page you hold. */
export interface NotModified {
  notModified: true;
  /** Status 304, the same `etag`, the rate limit (a 304 counts against it). */
  meta: ResponseMeta;
}

/** A poll's answer: the changed (or first) page, or NotModified. */
export type PollResult<R extends ResourceName> = (Page<R> & { notModified: false }) | NotModified;

/** The walk's default page size: the API's maximum, so a walk spends the fewest requests. */
export const WALK_PAGE_SIZE = 200;

/**
 * How many more times a walk waits out a 429 after the client's own retries gave up on one
 * page. A walk shares the brand's budget with every other client of the brand, so one page
 * may meet several refusals in a row; past this the RateLimitedError is thrown.
 */
export const WALK_RATE_LIMIT_WAITS = 5;

const PAGE_SHAPE = pageShape();

/**
 * The read methods of one resource: `list` for one page, `pages` and `all` to walk them all,
 * `retrieve` for one record by id.
 */
export class RecordsResource<R extends ResourceName> {
  constructor(
    private readonly transport: Transport,
    /** The resource's name, as in `/api/v1/{resource}`. */
    readonly resource: R,
  ) {}

  /** One page, newest first (GET /api/v1/{resource}). */
  async list(params: ListParams = {}): Promise<Page<R>> {
    const { body, meta } = await this.transport.request<Envelope<R>>(this.pageRequest(params));
    return { ...body, meta };
  }

  /**
   * One record by id (GET /api/v1/{resource}/{id}), typed, in exactly the fields of its list
   * items, with a non-enumerable `meta`:
   * `const payout = await client.payouts.retrieve('po_...'); payout.status`.
   * Throws NotFoundError when the key's brand has no such record (another brand's id
   * included), InvalidParameterError for an id that cannot be one. Counts against the brand's
   * rate limit like a page, and is retried as a page is.
   */
  retrieve(id: string, options: RetrieveOptions = {}): Promise<Retrieved<R>> {
    return retrieveRecord(this.transport, this.resource, id, options);
  }

  /**
   * One page, conditionally: with the `etag` of the page you hold, an unchanged page answers
   * NotModified (HTTP 304, no body, decided by the API without reading the page); a changed
   * one answers the new page with its new `meta.etag`. For integrations that re-read a first
   * page every few seconds:
   * `const r = await client.submissions.poll({ etag: held?.meta.etag }); if (!r.notModified) held = r;`
   * Each poll counts against the brand's rate limit, 304 or not.
   */
  async poll(params: PollParams = {}): Promise<PollResult<R>> {
    const { body, meta } = await this.transport.request<Envelope<R> | undefined>({
      ...this.pageRequest(params),
      ...(params.etag === undefined ? {} : { headers: { 'If-None-Match': params.etag } }),
      notModifiedIsResult: true,
    });
    if (body === undefined) return { notModified: true, meta };
    const page: Page<R> = { ...body, meta };
    return Object.assign(page, { notModified: false as const });
  }

  private pageRequest(params: ListParams): RequestSpec {
    return {
      method: 'GET',
      path: `/api/v1/${this.resource}`,
      query: {
        limit: params.limit === undefined ? undefined : String(params.limit),
        cursor: params.cursor,
        since: timeParam(params.since, 'since', `${this.resource}.list`),
      },
      idempotent: true,
      shape: PAGE_SHAPE,
      signal: params.signal,
    };
  }

  /**
   * Every page from the newest (or from `cursor`) to the last, following `next_cursor`. Stops
   * after a page without `next_cursor` or shorter than the page size. A page refused with 429
   * is waited out (never sooner than Retry-After) and asked again, so the walk goes on.
   */
  async *pages(params: WalkParams = {}): AsyncGenerator<Page<R>, void, undefined> {
    const limit = params.limit ?? WALK_PAGE_SIZE;
    let cursor = params.cursor;
    for (;;) {
      const page = await this.listThroughRateLimits({ ...params, limit, cursor });
      yield page;
      if (page.next_cursor === undefined || page.data.length < limit) return;
      cursor = page.next_cursor;
    }
  }

  /**
   * Every record, newest first, each exactly once (docs/contract.md#reading-records rule 2: the cursor walk is not an
   * update feed, so a record changed during the walk is not read again):
   * `for await (const s of client.submissions.all({ since })) { ... }`.
   */
  async *all(params: WalkParams = {}): AsyncGenerator<RecordsByResource[R], void, undefined> {
    for await (const page of this.pages(params)) {
      yield* page.data as RecordsByResource[R][];
    }
  }

  private async listThroughRateLimits(params: ListParams): Promise<Page<R>> {
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
}
