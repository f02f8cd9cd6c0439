import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '@brand/shared/errors';
import { changeVersionKey } from '@brand/shared/changeVersions';
import { isResourceName } from '@brand/shared/resources';
import type { AccessGate } from '../../auth/accessGate';
import { rawQueryOf, type RequestScope } from '../../http/requestScope';
import { admitApiKey } from '../../prelude/admission';
import type { LeanPath } from '../endpoint';
import { decodedSegment, resourceOfSegment } from '../../records/resourceNamed';
import { recordIdOf, refuseQuery, RETRIEVE_ROUTE, retrieveSegmentsOf } from './input';
import { answerRecord, type RecordDeps } from './record';

export interface RetrieveDeps extends RecordDeps {
  gate: AccessGate;
}

const ALLOWED = ['GET', 'HEAD'];

/**
 * GET /api/v1/{resource}/{id} (docs/api.md "One record by id"), the one implementation of
 * every record request, on plain node:http like the list's (v1ResourcesList/leanPath.ts), in
 * the list's order of checks: the method (405 with Allow); the key and one unit of the
 * brand's budget (admitApiKey: 401, 403, 429, so without a key every such path is 401);
 * 404 unknown_resource; 400 for any query parameter; the id (400 invalid_parameter when it
 * cannot be an id, 404 not_found when it is another resource's); then the conditional check
 * and the record (record.ts). Every failure is thrown to the one error answer.
 */
export function resourcesRetrievePath(deps: RetrieveDeps): LeanPath {
  return (req, res, scope) => {
    const segments = retrieveSegmentsOf(req.url);
    if (segments === undefined) return undefined;
    scope.route = RETRIEVE_ROUTE;
    return answerRetrieve(deps, req, res, scope, segments);
  };
}

async function answerRetrieve(
  deps: RetrieveDeps,
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
  segments: { resource: string; id: string },
): Promise<void> {
  if (!ALLOWED.includes(req.method ?? '')) {
    res.setHeader('Allow', ALLOWED.join(', '));
    throw new AppError(
      'method_not_allowed',
      `${req.method} is not allowed here; use ${ALLOWED.join(' or ')}.`,
    );
  }
  // malformed percent-encoding is the client's 400, once admitted
  const name = decodedSegment(segments.resource);
  const { identity, decision } = await admitApiKey(deps.gate, req, res, (who) =>
    name !== undefined && isResourceName(name) ? changeVersionKey(who.brandId, name) : undefined,
  );
  const resource = resourceOfSegment(name);
  refuseQuery(rawQueryOf(req.url ?? ''));
  const id = recordIdOf(resource, segments.id);
  await answerRecord(deps, res, {
    identity,
    resource,
    id,
    requestId: scope.requestId,
    ifNoneMatch: req.headers['if-none-match'],
    version: decision.peeked,
  });
}
