import { AppError } from '@brand/shared/errors';
import type { Pool } from '@brand/shared/db';
import {
  DEFAULT_LIMIT,
  isValidLimit,
  laterSince,
  LIST_PARAM_MESSAGES,
  normalizeSince,
  RECORD_ID_MESSAGE,
  recordIdShape,
  type ResourceName,
} from '@brand/shared/resources';
import type { CursorCodec } from './cursor';
import { selectChangeVersion } from '../versions/versionRepo';
import { selectPageJson, selectRecordJson, type PageQuery } from './recordRepo';
import type { PageSignal } from '@brand/shared/grpc';

export interface ListRequest {
  brandId: string;
  resource: ResourceName;
  limit: number | undefined;
  cursor: string | undefined;
  since: string | undefined;
  /** One record by id instead of a page (GET /api/v1/{resource}/{id}): see recordPage. */
  id?: string | undefined;
  /** Also read the brand's change version of the resource (before the page). */
  withChangeVersion?: boolean;
}

/** One page rendered as JSON (ListRecordsPage): `json` is the public records array. */
export interface JsonListResult {
  json: string;
  count: number;
  /** Present exactly when the page is full (docs/contract.md#reading-records rule 1). */
  nextCursor: string | undefined;
  /** With withChangeVersion: the version read before the page (versionRepo). */
  changeVersion?: string;
}

/**
 * Whether the page's caller stopped waiting (its time passed, it cancelled, its stream broke:
 * the page streams). An AbortSignal is one; the page stream passes a plain flag: nothing
 * listens for the abort, so an AbortController (an EventTarget) per page bought nothing.
 */
export type { PageSignal };

type ListDeps = {
  pool: Pool;
  cursors: CursorCodec;
  /** Once aborted, no further query of the page starts (it would run for nobody). */
  signal?: PageSignal;
};

/**
 * Validates a list request and resolves it to the page query. The parameters are
 * validated here too, not only at the gateway, because the gRPC API is a contract of its
 * own. A cursor continues the listing it came from, including its since filter; a since
 * passed alongside a cursor narrows it further.
 */
function resolvePage(deps: ListDeps, req: ListRequest): PageQuery {
  const limit = req.limit ?? DEFAULT_LIMIT;
  if (!isValidLimit(limit)) {
    throw new AppError('invalid_parameter', LIST_PARAM_MESSAGES.limit, {
      details: [{ field: 'limit', message: LIST_PARAM_MESSAGES.limit }],
    });
  }
  let since: string | undefined;
  if (req.since !== undefined) {
    since = normalizeSince(req.since);
    if (since === undefined) {
      throw new AppError('invalid_parameter', LIST_PARAM_MESSAGES.since, {
        details: [{ field: 'since', message: LIST_PARAM_MESSAGES.since }],
      });
    }
  }
  const position =
    req.cursor === undefined
      ? undefined
      : deps.cursors.decode({ brandId: req.brandId, resource: req.resource }, req.cursor);
  return {
    brandId: req.brandId,
    resource: req.resource,
    limit,
    since: laterSince(since, position?.since),
    after: position,
  };
}

/** The cursor after `last` when the page is full (docs/contract.md#reading-records rule 1), else undefined. */
function nextCursorOf(
  deps: ListDeps,
  q: PageQuery,
  count: number,
  last: { createdAt: string; id: string } | undefined,
): string | undefined {
  if (count !== q.limit || !last) return undefined;
  return deps.cursors.encode(
    { brandId: q.brandId, resource: q.resource },
    { createdAt: last.createdAt, id: last.id, since: q.since },
  );
}

/** The pool for the page's next query; throws once the page's caller stopped waiting. */
function startQuery(deps: ListDeps): Pool {
  if (deps.signal?.aborted) throw new AppError('service_unavailable', 'The page was withdrawn.');
  return deps.pool;
}

/**
 * Lists one page as finished JSON (ListRecordsPage, the gateway's hot path): the public
 * records array, its count and the next cursor. Throws invalid_parameter / invalid_cursor.
 */
export async function listRecordsJson(deps: ListDeps, req: ListRequest): Promise<JsonListResult> {
  if (req.id !== undefined) return recordPage(deps, req, req.id);
  const q = resolvePage(deps, req);
  const changeVersion = await changeVersionFirst(deps, req);
  const page = await selectPageJson(startQuery(deps), q);
  return {
    json: page.json,
    count: page.count,
    nextCursor: nextCursorOf(deps, q, page.count, page.last),
    ...(changeVersion === undefined ? {} : { changeVersion }),
  };
}

/**
 * One record by id as a page of at most one, never with a cursor: the record of the key's
 * brand, or none when the id is another brand's, exists nowhere, or cannot be one of the
 * resource's (recordIdShape: answered without a query; the prefixes are public). Refuses
 * with invalid_parameter an id that is not an id at all, and list parameters beside it.
 */
async function recordPage(deps: ListDeps, req: ListRequest, id: string): Promise<JsonListResult> {
  if (req.limit !== undefined || req.cursor !== undefined || req.since !== undefined) {
    throw new AppError('invalid_parameter', 'A record by id takes no limit, cursor or since.');
  }
  const shape = recordIdShape(req.resource, id);
  if (shape === 'malformed') {
    throw new AppError('invalid_parameter', RECORD_ID_MESSAGE, {
      details: [{ field: 'id', message: RECORD_ID_MESSAGE }],
    });
  }
  const changeVersion = await changeVersionFirst(deps, req);
  const record =
    shape === 'candidate'
      ? await selectRecordJson(startQuery(deps), {
          brandId: req.brandId,
          resource: req.resource,
          id,
        })
      : { json: '[]', count: 0 };
  return {
    json: record.json,
    count: record.count,
    nextCursor: undefined,
    ...(changeVersion === undefined ? {} : { changeVersion }),
  };
}

/**
 * With withChangeVersion, the brand's change version of the resource, read first and
 * awaited: the records read after it hold at least what the version claims.
 */
async function changeVersionFirst(deps: ListDeps, req: ListRequest): Promise<string | undefined> {
  return req.withChangeVersion
    ? selectChangeVersion(startQuery(deps), req.brandId, req.resource)
    : undefined;
}
