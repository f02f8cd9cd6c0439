import { recordShape } from '../http/responseShape.js';
import type { Transport } from '../http/transport.js';
import type { ResponseMeta } from '../responseMeta.js';
import type { RecordsByResource, ResourceName } from './recordTypes.js';

export interface RetrieveOptions {
  /** Cancels the call, including any wait between retries. */
  signal?: AbortSignal;
}

/**
 * One record as `retrieve` answers it: the record's own fields, exactly those of its list
 * items, plus `meta` (status, request id, rate limit, ETag). `meta` is not enumerable, so
 * `JSON.stringify(record)` and `{ ...record }` give the record as the API sent it.
 */
export type Retrieved<R extends ResourceName> = RecordsByResource[R] & {
  readonly meta: ResponseMeta;
};

/**
 * GET /api/v1/{resource}/{id}. The id is percent-encoded into the path, so no id can reach
 * another path. Throws NotFoundError (404 `not_found`) when the key's brand has no record of
 * the resource with this id (another brand's id included: the API does not say which),
 * InvalidParameterError when the id cannot be one (over 64 characters, characters outside
 * A-Z a-z 0-9 _), and TypeError for an id that is not a non-empty string.
 */
export async function retrieveRecord<R extends ResourceName>(
  transport: Transport,
  resource: R,
  id: string,
  options: RetrieveOptions,
): Promise<Retrieved<R>> {
  if (typeof id !== 'string' || id === '') {
    throw new TypeError(`${resource}.retrieve: id must be a non-empty string.`);
  }
  const { body, meta } = await transport.request<RecordsByResource[R]>({
    method: 'GET',
    path: `/api/v1/${resource}/${encodeURIComponent(id)}`,
    idempotent: true,
    shape: recordShape,
    signal: options.signal,
  });
  return Object.defineProperty(body, 'meta', { value: meta, enumerable: false }) as Retrieved<R>;
}
