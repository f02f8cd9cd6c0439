import type { IncomingMessage } from 'node:http';
import { changeVersionKey } from '@brand/shared/changeVersions';
import { isResourceName, type ResourceName } from '@brand/shared/resources';
import type { ListParams } from '../../records/listParams';
import { chargeBrand, knownIdentity } from '../../prelude/admission';
import type { FastPath } from '../endpoint';
import { commonListParams, LIST_ROUTE } from './input';
import { answerPage } from './page';
import type { ListDeps } from './route';

const PREFIX = '/api/v1/';

/**
 * The fast path of GET /api/v1/{resource}: what a busy integration sends all day, a GET of
 * one of the six resource names spelled exactly, with no query or only a valid `limit`
 * (input.ts's common forms), no body, and a key the gateway already knows. Everything else
 * (a key's first request, a refusal before admission, an unknown resource, another query or
 * method) is express's. It runs the express route's steps for such a request, without its
 * router, middleware chain and response object: admission (the known key, then the brand's
 * budget: 429, with the change version read along), then the page or 304 (page.ts).
 */
export function resourcesListFastPath(deps: ListDeps): FastPath {
  return (req, res, scope) => {
    const read = commonListRequest(req);
    if (read === undefined) return undefined;
    const identity = knownIdentity(deps.gate, req, scope);
    if (identity === undefined) return undefined;
    scope.route = LIST_ROUTE;
    const versionKey = changeVersionKey(identity.brandId, read.resource);
    return chargeBrand(deps.gate, res, identity, 1, versionKey).then((decision) =>
      answerPage(deps, res, {
        identity,
        resource: read.resource,
        params: read.params,
        requestId: scope.requestId,
        ifNoneMatch: req.headers['if-none-match'],
        version: decision.peeked,
      }),
    );
  };
}

/** The resource and parameters of a request in a common form, or undefined. */
function commonListRequest(
  req: IncomingMessage,
): { resource: ResourceName; params: ListParams } | undefined {
  if (req.method !== 'GET') return undefined;
  const url = req.url ?? '';
  if (!url.startsWith(PREFIX)) return undefined;
  const q = url.indexOf('?');
  const resource = url.slice(PREFIX.length, q === -1 ? undefined : q);
  if (!isResourceName(resource)) return undefined;
  const params = commonListParams(q === -1 ? '' : url.slice(q + 1));
  if (params === undefined) return undefined;
  const { headers } = req;
  const length = headers['content-length'];
  if ((length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined)
    return undefined;
  return { resource, params };
}
