import type { IncomingMessage, ServerResponse } from 'node:http';
import { changeVersionKey } from '@brand/shared/changeVersions';
import { AppError } from '@brand/shared/errors';
import type { AccessGate } from '../../auth/accessGate';
import { rawQueryOf, type RequestScope } from '../../http/requestScope';
import { admitApiKey } from '../../prelude/admission';
import type { LeanPath } from '../endpoint';
import { EVENTS_ROUTE, isEventsPath, readEventsQuery } from './input';
import { answerEventsPage, type EventsPageDeps } from './page';

export interface EventsListDeps extends EventsPageDeps {
  gate: AccessGate;
}

const ALLOWED = ['GET', 'HEAD'];

/**
 * GET /api/v1/events (docs/api.md "Events"), the one implementation of every feed request,
 * on plain node:http like the list's (v1ResourcesList/leanPath.ts) and in its order of
 * checks: the method (405 with Allow); the key and one unit of the brand's budget, with the
 * brand's feed version read along (admitApiKey: 401, 403, 429); the query (400); then the
 * conditional check and the page (page.ts). Every failure is thrown to the one error answer.
 */
export function eventsListPath(deps: EventsListDeps): LeanPath {
  return (req, res, scope) => {
    if (!isEventsPath(req.url)) return undefined;
    scope.route = EVENTS_ROUTE;
    return answerEvents(deps, req, res, scope);
  };
}

async function answerEvents(
  deps: EventsListDeps,
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
): Promise<void> {
  if (!ALLOWED.includes(req.method ?? '')) {
    res.setHeader('Allow', ALLOWED.join(', '));
    throw new AppError(
      'method_not_allowed',
      `${req.method} is not allowed here; use ${ALLOWED.join(' or ')}.`,
    );
  }
  const { identity, decision } = await admitApiKey(deps.gate, req, res, (who) =>
    changeVersionKey(who.brandId, 'events'),
  );
  const params = readEventsQuery(rawQueryOf(req.url ?? ''));
  await answerEventsPage(deps, res, {
    identity,
    params,
    requestId: scope.requestId,
    ifNoneMatch: req.headers['if-none-match'],
    version: decision.peeked,
  });
}
