import { createHash } from 'node:crypto';
import express, {
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Router,
} from 'express';
import { SCIMMY, SCIMMYRouters } from 'scimmy-routers';
import {
  ambiguousHeaderError,
  NOT_UTF8_MESSAGE,
  NOT_UTF8_TYPE,
  refuseNonUtf8,
} from '@brand/shared/httpServer';
import type { Logger } from '@brand/shared/logger';
import type { ConsoleClients } from '../clients/consoleClients';
import { isInputError, scimRefusalOf, type ScimRefusal } from './scimErrors';
import { groupMembersRoute } from './groupMembersRoute';
import { expressionsOf, isUnknownId, patchRefusal, refusalOf } from './expressionGuard';
import { brokenTextIn } from './brokenText';
import { normalisePatch, normaliseResource } from './providerQuirks';
import { MAX_PAGE } from './scimPaging';
import { declareScimResources, ifMatchVersion, type ScimContext } from './scimResources';
import type { AttemptOutcome, WrongTokenThrottle } from './wrongTokenThrottle';
import { firstCharacters } from '@brand/shared/text';

/** A SCIM token as records mints them: "scim_" and 43 base64url characters. */
const SCIM_TOKEN = /^Bearer (scim_[A-Za-z0-9_-]{43})$/;
/** The largest body a provider may send (a group of ~20,000 members fits). */
const MAX_BODY = '2mb';

/** A SCIM error body (RFC 7644 3.12), for any status (scimmy's own allows no 429 or 503). */
const errorBody = (httpStatus: number, detail: string, scimType?: string) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
  status: String(httpStatus),
  ...(scimType ? { scimType } : {}),
  detail,
});

const scimError = (res: express.Response, httpStatus: number, detail: string, scimType?: string) =>
  res
    .status(httpStatus)
    .type('application/scim+json')
    .send(errorBody(httpStatus, detail, scimType));

/** The client of the app currently served (scimmy's resources are declared once per process). */
let current: ConsoleClients | undefined;

/**
 * The brand's SCIM 2.0 service provider (issue 61) at `<CONSOLE_PUBLIC_URL>/scim/v2`, built on
 * scimmy and scimmy-routers: ServiceProviderConfig, ResourceTypes, Schemas, Users and Groups
 * (list with filter and paging, read, create, replace, PATCH, delete). The provider's bearer
 * token, checked by records, selects the brand; records stores the directory and derives
 * memberships. Server to server: no cookie is read and no Origin is asked for.
 */
export function scimEndpoint(deps: {
  clients: ConsoleClients;
  log: Logger;
  publicOrigin: string;
  scimWrongTokens: WrongTokenThrottle;
}): Router {
  current = deps.clients;
  declareScimResources(() => current!.provisioning);
  const contexts = new WeakMap<Request, ScimContext>();
  const router = express.Router();

  // The token first: a caller without one is answered 401 before any body is read or parsed
  // (an outside probe found anonymous bodies of 2 MB inflated and parsed, 2026-11-30).
  router.use(authenticate(deps, contexts));
  router.use(
    express.json({
      type: ['application/scim+json', 'application/json'],
      limit: MAX_BODY,
      verify: refuseNonUtf8,
    }),
  );
  router.use(providerQuirks);
  router.use(boundedPaging);
  router.use(answerAndLog(deps, contexts));
  router.use(boundedExpressions);
  router.use(wholeCharacters);
  router.use(
    groupMembersRoute({
      clients: deps.clients,
      publicOrigin: deps.publicOrigin,
      contextOf: (req) => contexts.get(req),
      refuse: answerRefusal,
    }),
  );
  router.use(
    new SCIMMYRouters({
      type: 'bearer',
      docUri: `${deps.publicOrigin}/brands`,
      // authenticate() checked the token already; no /Me for a provider (501)
      handler: (req: Request) => {
        if (!contexts.has(req)) throw new Error('The SCIM token is not valid.');
        return undefined as unknown as string;
      },
      context: (req: Request): ScimContext => contexts.get(req)!,
      baseUri: () => deps.publicOrigin,
    }),
  );
  // After the router (its constructor sets its own defaults): what this provider supports.
  SCIMMY.Config.set({
    patch: true,
    bulk: { supported: false },
    filter: { supported: true, maxResults: MAX_PAGE },
    changePassword: false,
    sort: true,
    // meta.version and the ETag header carry each resource's version, and If-Match is honoured
    // on PUT, PATCH and DELETE (412 when stale); a PATCH also expects the version it read.
    etag: true,
  });
  router.use(finalErrors(deps));
  return router;
}

/** Entra ID's and Okta's habits, normalised (providerQuirks.ts). */
const providerQuirks: RequestHandler = (req, _res, next) => {
  if (req.method === 'PATCH') req.body = normalisePatch(req.body);
  else if (req.method === 'POST' || req.method === 'PUT') req.body = normaliseResource(req.body);
  next();
};

/**
 * The query as one plain object for the rest of the request, `count` above MAX_PAGE read as
 * MAX_PAGE (RFC 7644 3.4.2.4 lets a provider cap it). Express 5's req.query parses the URL afresh
 * at each read, so scimmy-routers' cast of startIndex and count to numbers was lost and scimmy,
 * which takes only numbers, ignored both: every list answered from the first resource, 20 a page
 * (an import walking startIndex read the same page again and again).
 */
const boundedPaging: RequestHandler = (req, _res, next) => {
  const query = { ...req.query };
  const count = Number(query.count);
  if (typeof query.count === 'string' && Number.isFinite(count) && count > MAX_PAGE) {
    query.count = String(MAX_PAGE);
  }
  Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true });
  next();
};

/**
 * What scimmy could not parse in bounded time, refused before it sees it (expressionGuard.ts): a
 * resource's id that records never issues, 404 (scimmy reads the resource by a filter with the id
 * pasted in); a filter, attribute list, PATCH path or value, 400 with its SCIM error type.
 */
const boundedExpressions: RequestHandler = (req, res, next) => {
  if (isUnknownId(req.path)) {
    scimError(res, 404, 'Resource not found.');
    return;
  }
  for (const e of expressionsOf(req.method, req.path, req.query, req.body)) {
    const why = refusalOf(e);
    if (why) {
      scimError(res, 400, `${e.where} ${why}.`, e.scimType);
      return;
    }
  }
  const patch = req.method === 'PATCH' ? patchRefusal(req.body) : undefined;
  if (patch) {
    scimError(res, 400, patch.detail, patch.scimType);
    return;
  }
  next();
};

/**
 * A body holding text no service takes, a lone surrogate (brokenText.ts), refused 400
 * invalidValue naming the attribute: records would be sent U+FFFD in its place. After
 * boundedExpressions, which refuses one in a filter or a PATCH path with their own SCIM types.
 */
const wholeCharacters: RequestHandler = (req, res, next) => {
  const broken = brokenTextIn(req.body);
  if (broken) {
    scimError(res, 400, `${broken.where}: ${broken.why}`, 'invalidValue');
    return;
  }
  next();
};

/**
 * Checks the bearer token with records before anything else: 401 for a missing, malformed or
 * refused one (never a call to records for a token of the wrong form), 503 when records cannot
 * say. Discovery (ServiceProviderConfig, ResourceTypes, Schemas) needs a token too. A client
 * address past its bound of refused tokens is answered 429 with Retry-After, records unasked
 * (wrongTokenThrottle.ts).
 */
function authenticate(
  deps: { clients: ConsoleClients; log: Logger; scimWrongTokens: WrongTokenThrottle },
  contexts: WeakMap<Request, ScimContext>,
): RequestHandler {
  const logRefusal = refusalLog(deps);
  return (req, res, next) => {
    // Node keeps the first of two Authorization headers: a proxy reading the last would act
    // for another brand than the console does (ambiguousHeaders.ts, as on the gateway).
    const ambiguous = ambiguousHeaderError(req.rawHeaders);
    if (ambiguous) {
      scimError(res, 400, ambiguous.message);
      return;
    }
    const token = SCIM_TOKEN.exec(req.header('authorization') ?? '')?.[1];
    if (!token) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
      scimError(res, 401, 'Send the SCIM token as Authorization: Bearer scim_….');
      return;
    }
    const throttle = deps.scimWrongTokens;
    const settle = (outcome: AttemptOutcome) => void throttle.settle(req.ip, token, outcome);
    void throttle.attempt(req.ip, token).then((waitSeconds) => {
      if (waitSeconds !== undefined) {
        res.setHeader('Retry-After', String(waitSeconds));
        scimError(
          res,
          429,
          `Too many wrong SCIM tokens were sent from this address; try again in ${waitSeconds} seconds.`,
        );
        return;
      }
      deps.clients.provisioning('authenticateScimToken', { scim_token: token }).then(
        (answer) => {
          settle('accepted');
          const conditional = ['PUT', 'PATCH', 'DELETE'].includes(req.method);
          const ifMatch = conditional ? ifMatchVersion(req.header('if-match')) : undefined;
          contexts.set(req, { token, brandId: answer.brand_id, ...(ifMatch ? { ifMatch } : {}) });
          next();
        },
        (err: unknown) => {
          const { error, override } = answerRefusal(res, err);
          settle(res.statusCode === 401 ? 'refused' : 'unanswered');
          if (override?.status === 429) logRefusal(token, req, override.retryAfterSeconds, error);
        },
      );
    }, next);
  };
}

/**
 * Answers a refusal (scimErrors.ts) as its SCIM error: its status (tooMany 400, which scimmy
 * keeps at 413), WWW-Authenticate with a 401, Retry-After with a 429 or 503.
 */
function answerRefusal(res: express.Response, err: unknown): ScimRefusal {
  const refusal = scimRefusalOf(err);
  const { error, override } = refusal;
  const e = error as { status?: number; scimType?: string | null };
  let httpStatus = override?.status ?? e.status ?? 503;
  if (httpStatus === 413 && e.scimType === 'tooMany') httpStatus = 400;
  if (httpStatus === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
  if (override) res.setHeader('Retry-After', String(override.retryAfterSeconds));
  const detail = httpStatus >= 500 ? 'Try again shortly.' : error.message;
  scimError(res, httpStatus, detail, e.scimType ?? undefined);
  return refusal;
}

/**
 * Keeps a request refused for its token's rate limit (429) for the Provisioning page, once a
 * window per token (until its Retry-After has passed): one row for each refused request would
 * cost records a write for every request the limit is there to turn away. Records keeps none for
 * a token it does not know.
 */
function refusalLog(deps: { clients: ConsoleClients; log: Logger }) {
  const quietUntil = new Map<string, number>();
  return (token: string, req: Request, retryAfterSeconds: number, error: Error) => {
    const now = Date.now();
    const key = createHash('sha256').update(token).digest('hex');
    if ((quietUntil.get(key) ?? 0) > now) return;
    if (quietUntil.size > 10_000) {
      for (const [k, until] of quietUntil) if (until <= now) quietUntil.delete(k);
    }
    quietUntil.set(key, now + retryAfterSeconds * 1000);
    deps.clients
      .provisioning('logScimRequest', {
        scim_token: token,
        method: req.method,
        path: req.originalUrl.split('?')[0]!.slice(0, 200),
        status: 429,
        summary: firstCharacters(error.message, 300),
      })
      .catch((err: unknown) => deps.log.warn({ err }, 'SCIM request not logged'));
  };
}

/**
 * On the way out: applies a status scimmy cannot send (429, 503, with Retry-After), answers 400
 * invalidValue instead of scimmy's 500 for input it choked on (its router answers any error it
 * catches itself, so this is where its answer can still be mended), and keeps each authenticated
 * request and its outcome for the Provisioning page (best effort).
 */
function answerAndLog(
  deps: { clients: ConsoleClients; log: Logger },
  contexts: WeakMap<Request, ScimContext>,
): RequestHandler {
  return (req, res, next) => {
    let detail = '';
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      // Only the object a handler sends: express sends it again as a string (res.json), through
      // this same function, and a status still >= 500 would rewrite it over and over.
      if (typeof body === 'object' && body !== null && !Buffer.isBuffer(body)) {
        const override = contexts.get(req)?.override;
        if (override && res.statusCode >= 500) {
          res.status(override.status).setHeader('Retry-After', String(override.retryAfterSeconds));
          const message = 'detail' in body ? body.detail : '';
          body = errorBody(override.status, String(message));
        } else if (res.statusCode === 413 && isTooMany(body)) {
          // A list too large to filter (scimPaging.ts): 400 as RFC 7644 3.12 says; scimmy allows
          // tooMany only with 413.
          res.status(400);
          body = errorBody(400, String((body as { detail?: unknown }).detail), 'tooMany');
        } else if (res.statusCode >= 500 && body instanceof SCIMMY.Messages.Error) {
          const cause = (body as Error).cause;
          if (isInputError(cause)) {
            res.status(400);
            body = errorBody(400, INPUT_ERROR_DETAIL, 'invalidValue');
          }
        }
        if (res.statusCode >= 400 && 'detail' in (body as object)) {
          detail = String((body as { detail: unknown }).detail);
        }
        // One resource's answer carries its version as the ETag (RFC 7644 3.14).
        const version = (body as { meta?: { version?: unknown } }).meta?.version;
        if (res.statusCode < 300 && typeof version === 'string') res.setHeader('ETag', version);
      }
      return send(body);
    };
    res.on('finish', () => {
      const ctx = contexts.get(req);
      if (!ctx) return;
      deps.clients
        .provisioning('logScimRequest', {
          scim_token: ctx.token,
          method: req.method,
          path: req.originalUrl.split('?')[0]!.slice(0, 200),
          status: res.statusCode,
          summary: firstCharacters(detail, 300),
        })
        .catch((err: unknown) => deps.log.warn({ err }, 'SCIM request not logged'));
    });
    next();
  };
}

const isTooMany = (body: object) =>
  body instanceof SCIMMY.Messages.Error && (body as { scimType?: unknown }).scimType === 'tooMany';

/** What a provider is told of input scimmy choked on. */
// scimmy's TypeErrors are JavaScript's words about its own objects ("Cannot read properties of
// null", "'set' on proxy: trap returned falsish"): no use to a provider, so SCIM's words (the
// warning logged keeps the error).
const INPUT_ERROR_DETAIL =
  'The request could not be applied: a value, path or attribute name in it is not of the form SCIM expects (RFC 7643, RFC 7644).';

/**
 * The last handler: every error still unanswered becomes a SCIM error, never the console's HTML
 * error page. A body that is not JSON or too large, 400 or 413; input scimmy choked on, 400
 * invalidValue; anything else 500, logged. scimmy's router answers the errors it catches itself
 * and passes on those of 500 (answerAndLog mended input errors to 400 meanwhile): logged here.
 */
function finalErrors(deps: { log: Logger }): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      // 501 is scimmy's answer for what this provider does not offer (/Me, /Bulk), which
      // providers probe: not a failure of ours, so not the error log an alert counts.
      if (res.statusCode === 501) deps.log.debug({ method: req.method }, 'SCIM: not offered');
      else if (res.statusCode >= 500) next(err);
      else deps.log.warn({ err, method: req.method }, 'SCIM input scimmy could not take');
      return;
    }
    const e = err as { status?: number; type?: string; message?: string };
    if (e.type === 'entity.too.large') {
      scimError(res, 413, `The request body is larger than ${MAX_BODY}.`);
    } else if (e.type === NOT_UTF8_TYPE) {
      scimError(res, 400, NOT_UTF8_MESSAGE);
    } else if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      scimError(res, 400, 'The request body is not valid JSON.');
    } else if (isInputError(err)) {
      scimError(res, 400, INPUT_ERROR_DETAIL, 'invalidValue');
    } else {
      deps.log.error({ err, method: req.method }, 'SCIM request failed');
      scimError(res, 500, 'Something went wrong on our side; try again.');
    }
  };
}
