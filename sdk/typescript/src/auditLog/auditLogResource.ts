import type { components } from '../generated/openapi.js';
import { RateLimitedError } from '../errors/codeErrors.js';
import { pageShape } from '../http/responseShape.js';
import type { RequestSpec, Transport } from '../http/transport.js';
import type { ResponseMeta } from '../responseMeta.js';

/** One entry of the brand's audit trail, as the audit streams get it (generated from the OpenAPI document). */
export type AuditEntry = components['schemas']['AuditEntry'];
/** One page of the audit log: `resource: "audit_log"`, `count`, `data`, `next_cursor` or `next_after`, and `head`. */
export type AuditLogEnvelope = components['schemas']['AuditLogPage'];
/** One page and what the response said about itself. */
export type AuditLogPage = AuditLogEnvelope & { meta: ResponseMeta };

export interface AuditLogListParams {
  /** Page size, 1 to 200 (API default 50). */
  limit?: number;
  /** Newest first: the `next_cursor` of the previous page. Not with `after`. */
  cursor?: string;
  /** Following: the entries after this position, oldest first (0: the oldest kept). */
  after?: number;
  /** Only activity, or only refused and failed requests. */
  kind?: 'activity' | 'request';
  signal?: AbortSignal;
}

const PAGE_SHAPE = pageShape({});
/** Pages read after a position carry the position to read on from. */
const PAGE_AFTER_SHAPE = pageShape({ nextAfter: true });

/** The walk's default page size: the API's maximum, so a walk spends the fewest requests. */
const WALK_PAGE_SIZE = 200;
/** How many 429s in a row one page of a walk waits out after the transport's own retries. */
const WALK_RATE_LIMIT_WAITS = 5;

/**
 * The brand's audit log (GET /api/v1/audit-log, docs/api.md "Audit log"; a key with
 * `audit:read`): `list` for one page, `all` to walk it newest first, or oldest first after a
 * stored position (`after`) for a SIEM that pulls: store each page's `next_after` once its
 * entries are handled, and read on from it.
 */
export class AuditLogResource {
  constructor(private readonly transport: Transport) {}

  /** One page: newest first (with `cursor`), or oldest first after `after`. */
  async list(params: AuditLogListParams = {}): Promise<AuditLogPage> {
    const { body, meta } = await this.transport.request<AuditLogEnvelope>(this.pageRequest(params));
    return { ...body, meta };
  }

  /**
   * Every entry newest first (or oldest first after `after`), page by page, each once:
   * `for await (const e of client.auditLog.all({ kind: 'activity' }))`. A 429 on a page is
   * waited out and the page asked again. With `after`, the walk ends at the log's head.
   */
  async *all(params: Omit<AuditLogListParams, 'cursor'> = {}): AsyncGenerator<AuditEntry, void> {
    const limit = params.limit ?? WALK_PAGE_SIZE;
    let at: AuditLogListParams = { ...params, limit };
    for (;;) {
      const page = await this.listThroughRateLimits(at);
      yield* page.data;
      if (page.data.length < limit) return;
      if (params.after !== undefined) at = { ...at, after: page.next_after };
      else if (page.next_cursor !== undefined) at = { ...at, cursor: page.next_cursor };
      else return;
    }
  }

  private async listThroughRateLimits(params: AuditLogListParams): Promise<AuditLogPage> {
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

  private pageRequest(params: AuditLogListParams): RequestSpec {
    return {
      method: 'GET',
      path: '/api/v1/audit-log',
      query: {
        limit: params.limit === undefined ? undefined : String(params.limit),
        cursor: params.cursor,
        after: params.after === undefined ? undefined : String(params.after),
        kind: params.kind,
      },
      idempotent: true,
      shape: params.after === undefined ? PAGE_SHAPE : PAGE_AFTER_SHAPE,
      signal: params.signal,
    };
  }
}
