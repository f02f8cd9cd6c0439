import type { RequestHandler, Response } from 'express';
import { rateLimitedError, type AccessGate } from '../auth/accessGate';
import type { ApiIdentity } from '../auth/identity';

/**
 * The one admission step of every authenticated REST route: the key (401/403), then one
 * unit of the brand's budget (429 with Retry-After). The admitted identity is kept on the
 * response for the handler (identityOf). MCP admits through the gate itself, since it
 * prices a request by its message count and answers a spent budget inside a tool result.
 */
export function requireApiKey(gate: AccessGate): RequestHandler {
  return async (req, res, next) => {
    const { identity, decision } = await gate.admit(req, res);
    if (!decision.allowed) throw rateLimitedError(decision);
    res.locals.identity = identity;
    next();
  };
}

/** The identity requireApiKey admitted; throws if the route forgot the step. */
export function identityOf(res: Response): ApiIdentity {
  const identity = res.locals.identity as ApiIdentity | undefined;
  if (!identity) throw new Error('identityOf: the route has no requireApiKey step');
  return identity;
}
