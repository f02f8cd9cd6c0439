import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { rateLimitedError, type AccessGate } from '../auth/accessGate';
import type { ApiIdentity } from '../auth/identity';
import type { RequestScope } from '../http/requestScope';
import type { RateLimitDecision } from '../ratelimit/limiter';

/**
 * Admission, the last step of the request prelude, in the forms the two paths take: the key
 * (401/403/503, auth/accessGate.ts) and then the brand's budget (429). The steps and their
 * order are the AccessGate's; this module only adapts them to express and to the fast paths,
 * so both run the same admission.
 */

/**
 * The express form, the one admission step of every authenticated REST route: the key, then
 * one unit of the brand's budget. The admitted identity is kept on the response for the
 * handler (identityOf). MCP admits through the gate itself, since it prices a request by its
 * message count and answers a spent budget inside a tool result.
 */
export function requireApiKey(
  gate: AccessGate,
  /**
   * A Redis key of the request to read along with the budget (the list's change version,
   * issue 18), kept for the handler (peekedOf); undefined when the request names none.
   */
  peekKeyOf?: (req: Request, identity: ApiIdentity) => string | undefined,
): RequestHandler {
  return async (req, res, next) => {
    const identity = await gate.identify(req, res);
    const decision = await chargeBrand(gate, res, identity, 1, peekKeyOf?.(req, identity));
    res.locals.identity = identity;
    res.locals.peeked = decision.peeked;
    next();
  };
}

/** The value requireApiKey's peekKeyOf key had (null: missing; undefined: not read). */
export function peekedOf(res: Response): string | null | undefined {
  return res.locals.peeked as string | null | undefined;
}

/** The identity requireApiKey admitted; throws if the route forgot the step. */
export function identityOf(res: Response): ApiIdentity {
  const identity = res.locals.identity as ApiIdentity | undefined;
  if (!identity) throw new Error('identityOf: the route has no requireApiKey step');
  return identity;
}

/**
 * The fast paths' form of the key step: the identity of a key the gateway already knows and
 * admits (cached, on a paid tier), decided without leaving the process and without side
 * effects; the brand is named on the scope. Undefined means the key needs the full step
 * (a lookup, a refusal, the address budget): the request is express's.
 */
export function knownIdentity(
  gate: AccessGate,
  req: IncomingMessage,
  scope: RequestScope,
): ApiIdentity | undefined {
  const identity = gate.knownIdentity(req.headers.authorization);
  if (identity !== undefined) scope.brandId = identity.brandId;
  return identity;
}

/**
 * The budget step for REST, on both paths: `cost` units of the brand's budget, with the
 * RateLimit headers; a spent budget throws rate_limited (429 with Retry-After). Resolves to
 * the allowed decision, with `peekKey`'s value read along (RateLimitDecision.peeked).
 */
export async function chargeBrand(
  gate: AccessGate,
  res: Pick<ServerResponse, 'setHeader'>,
  identity: ApiIdentity,
  cost = 1,
  peekKey?: string,
): Promise<RateLimitDecision> {
  const decision = await gate.charge(res, identity, cost, peekKey);
  if (!decision.allowed) throw rateLimitedError(decision);
  return decision;
}
