import type { ResourceName } from '@brand/shared/resources';
import type { Identity } from '../auth/identity';
import type { RecordsApi } from '../clients/recordsClient';
import type { Cancellation } from '../clients/pageStreams/poolSettings';
import { bufferView } from './listPage';

/** One record as the records service rendered it, or none, and the change version read first. */
export interface RecordById {
  /**
   * The record's JSON object, byte for byte an element of a list page's `data` (the same row
   * shape, records/pageJson.ts), or undefined when the brand has no record of this id.
   */
  json: Buffer | undefined;
  /** With withChangeVersion: the brand's change version of the resource, read before the record. */
  changeVersion?: string;
}

/**
 * The key's brand's record of `resource` with this id (GET /api/v1/{resource}/{id}): the
 * page of at most one record that records answers for a ListRecordsPage with `id`, on the
 * same page streams as every list page. Another brand's id and an id that exists nowhere
 * both come back as no record (records runs the same query for both). Rejects with the
 * records service's AppError (invalid_parameter, service_unavailable, ...).
 */
export async function recordById(
  records: RecordsApi,
  identity: Identity,
  resource: ResourceName,
  id: string,
  requestId: string,
  opts: { withChangeVersion: boolean; signal?: Cancellation },
): Promise<RecordById> {
  const response = await records.listRecordsPage(
    {
      brandId: identity.brandId,
      resource,
      limit: undefined,
      cursor: undefined,
      since: undefined,
      id,
      withChangeVersion: opts.withChangeVersion,
    },
    requestId,
    opts.signal,
  );
  const version = response.change_version;
  // `[{...}]`: the array's one element is its bytes between the brackets (a view, no copy)
  const json =
    response.count === 1
      ? bufferView(response.data_json).subarray(1, response.data_json.length - 1)
      : undefined;
  return { json, ...(version === undefined ? {} : { changeVersion: String(version) }) };
}
