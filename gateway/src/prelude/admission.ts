import type { IncomingMessage, ServerResponse } from 'node:http';
import { rateLimitedError, type AccessGate } from '../auth/accessGate';
import type { ApiIdentity } from '../auth/identity';
import type { RateLimitDecision } from '../ratelimit/limiter';

/**
 * Admission, the step after the request prelude: the key (401/403/503, auth/accessGate.ts)
 * and then the brand's budget (429). The steps and their order are the AccessGate's; this
 * module is the one place endpoints take them from: admitApiKey on the lean paths (lists and
 * campaign plans). MCP admits through the same two steps (the gate's
 * identify, then the gate's charge), priced per message and answering a spent budget with
 * a 429 JSON-RPC error (endpoints/mcp/rpcAnswers.ts sendRateLimited).
 */

/**
 * The one admission of an authenticated REST request: the key, then one unit of the brand's
 * budget, with `peekKeyOf`'s Redis key read along (the list's change version, issue 18). A
 * conditional request (If-None-Match) has it read as it is now, since its 304 is decided on it;
 * any other may be labelled with a version read lately (admissionLeases.ts, issue 64).
 * Throws the refusal to answer with; resolves to the admitted identity and the decision.
 */
export async function admitApiKey(
  gate: AccessGate,
  req: IncomingMessage,
  res: ServerResponse,
  peekKeyOf?: (identity: ApiIdentity) => string | undefined,
): Promise<{ identity: ApiIdentity; decision: RateLimitDecision }> {
  const identity = await gate.identify(req, res);
  const conditional = req.headers['if-none-match'] !== undefined;
  const decision = await chargeBrand(gate, res, identity, 1, peekKeyOf?.(identity), conditional);
  return { identity, decision };
}

/**
 * The budget step: `cost` units of the brand's budget, with the RateLimit headers; a spent
 * budget throws rate_limited (429 with Retry-After). Resolves to the allowed decision, with
 * `peekKey`'s value read along (RateLimitDecision.peeked).
 */
async function chargeBrand(
  gate: AccessGate,
  res: Pick<ServerResponse, 'setHeader'>,
  identity: ApiIdentity,
  cost = 1,
  peekKey?: string,
  peekFresh?: boolean,
): Promise<RateLimitDecision> {
  const decision = await gate.charge(res, identity, cost, peekKey, peekFresh);
  if (!decision.allowed) throw rateLimitedError(decision);
  return decision;
}
