import type { ServerResponse } from 'node:http';
import { EVENT_TYPES } from '@brand/shared/enums';
import type { ApiIdentity } from '../../auth/identity';
import type { EventsFeedApi } from '../../clients/eventsFeedClient';
import { ClientGone } from '../../http/clientGone';
import { ifNoneMatchLists, sendNotModified } from '../../http/conditional';
import { sendJson } from '../../http/jsonResponse';
import { bufferView } from '../../records/listPage';
import type { ChangeVersionRepair } from '../../records/changeVersions';
import { eventsEtag } from './conditional';
import type { EventsParams } from './input';

/** What answering a feed page needs beyond the request. */
export interface EventsPageDeps {
  feed: EventsFeedApi;
  versions: ChangeVersionRepair;
}

/** An admitted, valid feed request. */
export interface EventsPageRequest {
  identity: ApiIdentity;
  params: EventsParams;
  requestId: string;
  /** The If-None-Match field as received. */
  ifNoneMatch: string | undefined;
  /**
   * The brand's feed version, read by admission in its rate-limit round trip: null when
   * Redis has no such key, undefined when it was not read (Redis down).
   */
  version: string | null | undefined;
}

/**
 * The answer of an admitted, valid feed request (leanPath.ts), decided as a list page's
 * (v1ResourcesList/page.ts): with a known feed version, a matching If-None-Match is 304
 * before any call to webhooks; otherwise one page from webhooks, whose events array passes
 * through as the bytes it sent (data_json, never decoded), in the list envelope (`next_cursor` newest first on a full page,
 * `next_after` when following) with the feed's `head`, tagged with the version the page was
 * read at (which is that head). A version newer than Redis's is written back (a publish the
 * consumer lost heals on the next read). Rejects with the webhooks service's AppError
 * (invalid_cursor, cursor_expired, position_beyond_head, ...).
 */
export async function answerEventsPage(
  deps: EventsPageDeps,
  res: ServerResponse,
  request: EventsPageRequest,
): Promise<void> {
  const { identity, params } = request;
  const known = request.version ?? undefined;
  // An `after` past the version Redis holds goes to webhooks, which knows the head for sure
  // (Redis may lag it): never a 304 for a position the feed may refuse.
  const pastKnownHead = params.after !== undefined && params.after > Number(known);
  const etag =
    known === undefined || pastKnownHead ? undefined : eventsEtag(identity.brandId, params, known);
  if (etag !== undefined && request.ifNoneMatch && ifNoneMatchLists(request.ifNoneMatch, etag)) {
    sendNotModified(res, etag);
    return;
  }
  const page = await deps.feed.listFeedEvents(
    {
      brand_id: identity.brandId,
      limit: params.limit ?? 0,
      cursor: params.cursor ?? '',
      forward: params.after !== undefined,
      after: params.after ?? 0,
      types: params.types.map((t) => EVENT_TYPES.toProto(t)),
      record_id: params.recordId ?? '',
      since: params.since ?? '',
      until: params.until ?? '',
      as_data_json: true,
    },
    request.requestId,
    new ClientGone(res),
  );
  const version = String(page.feed_version);
  if (request.version !== undefined && version !== request.version && page.feed_version > 0)
    deps.versions.repair(identity.brandId, 'events', version);
  res.setHeader('ETag', eventsEtag(identity.brandId, params, version));
  const next =
    params.after !== undefined
      ? `,"next_after":${page.next_after}`
      : page.next_cursor
        ? `,"next_cursor":${JSON.stringify(page.next_cursor)}`
        : '';
  const tail = `${next},"head":${version}}`;
  // data_json from webhooks that knows as_data_json; events_json from one of an older version
  const data =
    page.data_json.length > 0
      ? bufferView(page.data_json)
      : Buffer.from(`[${page.events_json.join(',')}]`);
  const count = page.data_json.length > 0 ? page.count : page.events_json.length;
  sendJson(res, 200, [`{"resource":"events","count":${count},"data":`, data, tail]);
}
