import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '@brand/shared/errors';
import { changeVersionKey } from '@brand/shared/changeVersions';
import { isResourceName } from '@brand/shared/resources';
import type { AccessGate } from '../../auth/accessGate';
import { rawQueryOf, type RequestScope } from '../../http/requestScope';
import { admitApiKey } from '../../prelude/admission';
import type { LeanPath } from '../endpoint';
import { decodedSegment, resourceOfSegment } from '../../records/resourceNamed';
import { LIST_ROUTE, readListQuery } from './input';
import { answerPage, type PageDeps } from './page';

export interface ListDeps extends PageDeps {
  gate: AccessGate;
}

/**
 * `/api/v1/{resource}` as express's router matched LIST_ROUTE: any case, an optional trailing
 * slash, one path segment. `/api/v1/campaign-plans` is the plans endpoint's (express).
 */
const LIST_PATH = /^\/api\/v1\/([^/]+?)\/?$/i;
const PLANS_SEGMENT = /^campaign-plans$/i;

const ALLOWED = ['GET', 'HEAD'];

/**
 * GET /api/v1/{resource} (docs/contract.md#reading-records), the one implementation of every list request: any query
 * (limit, cursor, since), If-None-Match, HEAD, a key's first request as a cached one's, and
 * every refusal. Plain node:http, no express on the way.
 * Order of checks, by design: the method (405 with Allow), then authentication and the
 * brand's rate limit (admitApiKey), so an unauthenticated caller gets 401 for any path under
 * /api/v1 (the resource names are public in the OpenAPI file anyway) and every authenticated
 * request counts (a 304 too); then 404 unknown_resource; then parameter validation; then the
 * conditional check and the page (page.ts). Every failure is thrown to the one error answer.
 */
export function resourcesListPath(deps: ListDeps): LeanPath {
  return (req, res, scope) => {
    const segment = listSegmentOf(req.url);
    if (segment === undefined) return undefined;
    scope.route = LIST_ROUTE;
    return answerList(deps, req, res, scope, segment);
  };
}

async function answerList(
  deps: ListDeps,
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
  segment: string,
): Promise<void> {
  if (!ALLOWED.includes(req.method ?? '')) {
    res.setHeader('Allow', ALLOWED.join(', '));
    throw new AppError(
      'method_not_allowed',
      `${req.method} is not allowed here; use ${ALLOWED.join(' or ')}.`,
    );
  }
  // express decoded the parameter; malformed percent-encoding is the client's 400, once admitted
  const name = decodedSegment(segment);
  const { identity, decision } = await admitApiKey(deps.gate, req, res, (who) =>
    name !== undefined && isResourceName(name) ? changeVersionKey(who.brandId, name) : undefined,
  );
  const resource = resourceOfSegment(name);
  const rawQuery = rawQueryOf(req.url ?? '');
  const params = readListQuery(rawQuery);
  await answerPage(deps, res, {
    identity,
    resource,
    params,
    requestId: scope.requestId,
    ifNoneMatch: req.headers['if-none-match'],
    version: decision.peeked,
  });
}

/** The raw resource segment of a list path, or undefined when the path is not one. */
function listSegmentOf(url: string | undefined): string | undefined {
  const target = url ?? '';
  const end = target.search(/[?#]/);
  const match = LIST_PATH.exec(end === -1 ? target : target.slice(0, end));
  const segment = match?.[1];
  return segment === undefined || PLANS_SEGMENT.test(segment) ? undefined : segment;
}
