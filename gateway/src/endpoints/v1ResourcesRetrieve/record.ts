import type { ServerResponse } from 'node:http';
import type { ResourceName } from '@brand/shared/resources';
import type { ApiIdentity } from '../../auth/identity';
import type { RecordsApi } from '../../clients/recordsClient';
import { ClientGone } from '../../http/clientGone';
import { sendJson } from '../../http/jsonResponse';
import type { ChangeVersionRepair } from '../../records/changeVersions';
import { recordById } from '../../records/recordById';
import { ifNoneMatchLists, sendNotModified } from '../../http/conditional';
import { recordEtag } from './conditional';
import { recordNotFound } from './input';

/** What answering a record needs beyond the request. */
export interface RecordDeps {
  records: RecordsApi;
  versions: ChangeVersionRepair;
}

/** An admitted, valid request for one record. */
export interface RecordRequest {
  identity: ApiIdentity;
  resource: ResourceName;
  id: string;
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
 * The answer of an admitted, valid record request (leanPath.ts), decided as a list page's
 * (v1ResourcesList/page.ts): with a known change version a matching If-None-Match is 304
 * before any records call; otherwise the record from records, written out as its bytes
 * arrived (the same bytes as in a list page's `data`), with its ETag; no record is 404
 * not_found, the same answer for every reason (recordNotFound). With an unknown version the
 * record is labelled with the version records read just before it, written back to Redis
 * when the key was missing. Rejects with the records service's AppError.
 */
export async function answerRecord(
  deps: RecordDeps,
  res: ServerResponse,
  request: RecordRequest,
): Promise<void> {
  const { identity, resource, id } = request;
  const known = request.version ?? undefined;
  let etag = known === undefined ? undefined : recordEtag(identity.brandId, resource, id, known);
  if (etag !== undefined && request.ifNoneMatch && ifNoneMatchLists(request.ifNoneMatch, etag)) {
    sendNotModified(res, etag);
    return;
  }
  const record = await recordById(deps.records, identity, resource, id, request.requestId, {
    withChangeVersion: known === undefined,
    signal: new ClientGone(res),
  });
  if (etag === undefined && record.changeVersion !== undefined) {
    etag = recordEtag(identity.brandId, resource, id, record.changeVersion);
    if (request.version === null)
      deps.versions.repair(identity.brandId, resource, record.changeVersion);
  }
  if (record.json === undefined) throw recordNotFound(resource);
  if (etag !== undefined) res.setHeader('ETag', etag);
  sendJson(res, 200, [record.json]);
}
