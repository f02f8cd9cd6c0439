import type { ServerResponse } from 'node:http';
import type { ResourceName } from '@brand/shared/resources';
import type { ApiIdentity } from '../../auth/identity';
import type { RecordsApi } from '../../clients/recordsClient';
import { ClientGone } from '../../http/clientGone';
import { sendJson } from '../../http/jsonResponse';
import type { ChangeVersionRepair } from '../../records/changeVersions';
import { listPage, takeData } from '../../records/listPage';
import type { ListParams } from '../../records/listParams';
import { ifNoneMatchLists, sendNotModified } from '../../http/conditional';
import { listEtag } from './conditional';

/** What answering a page needs beyond the request. */
export interface PageDeps {
  records: RecordsApi;
  versions: ChangeVersionRepair;
}

/** An admitted, valid list request. */
export interface PageRequest {
  identity: ApiIdentity;
  resource: ResourceName;
  params: ListParams;
  requestId: string;
  /** The If-None-Match field as received. */
  ifNoneMatch: string | undefined;
  /**
   * The brand's change version of the resource, read by admission in its rate-limit round
   * trip: null when Redis has no such key, undefined when it was not read (Redis down).
   */
  version: string | null | undefined;
}

/**
 * The answer of an admitted, valid list request (leanPath.ts). With a known change version: a matching If-None-Match is 304, decided before any
 * page is asked for (no records call, no PostgreSQL query); otherwise one page from the
 * records service, written out as the records' bytes arrived (never decoded and re-encoded),
 * with its ETag. With an unknown version the page is always served whole (never a 304 on a
 * guess), labelled with the version records read just before it, which is written back to
 * Redis when the key was missing. Rejects with the records service's AppError
 * (invalid_cursor, service_unavailable, ...).
 */
export async function answerPage(
  deps: PageDeps,
  res: ServerResponse,
  request: PageRequest,
): Promise<void> {
  const { identity, resource, params } = request;
  const known = request.version ?? undefined;
  let etag = known === undefined ? undefined : listEtag(identity.brandId, resource, params, known);
  if (etag !== undefined && request.ifNoneMatch && ifNoneMatchLists(request.ifNoneMatch, etag)) {
    sendNotModified(res, etag);
    return;
  }
  const page = await listPage(deps.records, identity, resource, params, request.requestId, {
    withChangeVersion: known === undefined,
    signal: new ClientGone(res),
  });
  if (etag === undefined && page.changeVersion !== undefined) {
    etag = listEtag(identity.brandId, resource, params, page.changeVersion);
    if (request.version === null)
      deps.versions.repair(identity.brandId, resource, page.changeVersion);
  }
  if (etag !== undefined) res.setHeader('ETag', etag);
  sendJson(res, 200, [page.head, takeData(page), page.tail]);
}
