import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, isAppError, quoteInput } from '@brand/shared/errors';
import { requestIdOf, scopeOf } from '../http/requestScope';
import { setRateLimitHeaders } from '../ratelimit/headers';
import type { RateLimitDecision, RateLimiter } from '../ratelimit/limiter';
import type { AuthFailureObserver } from './authFailures';
import type { Authenticator } from './authenticator';
import { clientAddressKey } from '@brand/shared/httpServer';
import { TIER_RATE_LIMITS } from '@brand/shared/enums';
import type { ApiIdentity, Identity } from './identity';
import type { AddressOf } from './requestAddress';

/** The refusal for a spent budget, with the wait the client must honour. */
export function rateLimitedError(d: RateLimitDecision): AppError {
  return new AppError(
    'rate_limited',
    `Rate limit of ${d.limit} requests a minute exceeded; retry after ${d.retryAfterSeconds} s.`,
    { retryAfterSeconds: d.retryAfterSeconds },
  );
}

/** The refusal of a key used from outside its allowed networks (issue 63). */
function networkNotAllowed(address: string | undefined): AppError {
  const from = address ? quoteInput(address) : 'this address';
  return new AppError(
    'network_not_allowed',
    `This API key may be used only from its allowed networks; requests from ${from} are refused. A brand owner sets a key's networks in the Developers area.`,
  );
}

/**
 * Admission for every API request, REST and MCP alike, in one order:
 * 1. read the key (exact Bearer scheme, our format, this environment, the cache);
 * 2. a key that is not cached reserves one unit of the client address's budget before it
 *    is looked up, so even concurrent guesses stop at the per-address limit; a key that
 *    proves valid gets the unit back;
 * 3. a failure (missing or invalid key) is charged to the client address;
 * 4. a valid key is charged to its brand's budget, one per request (or per message of a
 *    batch), shared by all keys, instances, REST and MCP.
 * Between 3 and 4, a valid key with allowed networks is checked against the client address
 * (from its cached identity, issue 63): from elsewhere it is refused like a failure of step 3,
 * 403 network_not_allowed charged to the address.
 * RateLimit headers are set on the response for whichever budget was charged.
 * Throws the AppError to answer with (401, 403, 429 for the address, 503); a spent brand
 * budget is returned as a refused decision, since MCP answers it inside a tool result.
 * Every refused key is reported to `onFailure` with its reason (the /metrics counter).
 */
export class AccessGate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly limiter: RateLimiter,
    private readonly anonymousLimit: number,
    /** Multiplies every tier's budget: 1 in production; raised only by benchmarks and tests. */
    private readonly limitScale = 1,
    private readonly onFailure: AuthFailureObserver = () => undefined,
    /** The client address the per-address budget counts (requestAddress.ts: TRUST_PROXY). */
    private readonly addressOf: AddressOf = (req) => req.socket.remoteAddress,
  ) {}

  /** The brand's requests per minute (docs/contract.md#limits), shared by REST and MCP. */
  limitOf(identity: ApiIdentity): number {
    return TIER_RATE_LIMITS[identity.tier] * this.limitScale;
  }

  /**
   * Charges `cost` units to the identity's brand budget and sets the RateLimit headers;
   * `peekKey` is read along in the same round trip (RateLimitDecision.peeked), as it is now
   * when `peekFresh` (see RateLimiter.consume).
   */
  async charge(
    res: Pick<ServerResponse, 'setHeader'>,
    identity: ApiIdentity,
    cost: number,
    peekKey?: string,
    peekFresh?: boolean,
  ): Promise<RateLimitDecision> {
    const decision = await this.limiter.consume(
      `brand:${identity.brandId}`,
      this.limitOf(identity),
      cost,
      peekKey,
      peekFresh,
    );
    setRateLimitHeaders(res, 'brand', decision);
    return decision;
  }

  /** Charges a request that needs no key (the OpenAPI file) to its client address. */
  async admitAnonymous(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const decision = await this.chargeAddress(req, res, 1);
    if (!decision.allowed) throw rateLimitedError(decision);
  }

  /**
   * Steps 1-3: the request's brand identity, or the AppError to answer with. Also refuses
   * brands below Plus (insufficient_permission): API access is a Plus feature.
   */
  async identify(req: IncomingMessage, res: ServerResponse): Promise<ApiIdentity> {
    const identity = await this.authenticate(req, res);
    const scope = scopeOf(res);
    if (scope) {
      scope.brandId = identity.brandId;
      scope.keyId = identity.keyId;
    }
    // The key's networks, from the cached identity: no round trip. Refused like a key that
    // does not work from here (charged to the address, not the brand, so a leaked key used
    // elsewhere cannot spend the brand's budget); the request log keeps where it came from.
    if (identity.fromNetworks !== undefined) {
      const address = this.addressOf(req);
      if (!identity.fromNetworks(address)) {
        if (scope) scope.keyRefusedHere = true;
        this.onFailure('network');
        await this.refuse(req, res, networkNotAllowed(address));
      }
    }
    if (identity.tier === 'free') {
      if (scope) scope.keyRefusedHere = true;
      this.onFailure('plan_tier');
      // Charged to the address like a key that does not work: a brand below Plus has no budget
      // to charge, and uncharged the refusal could be asked for without limit.
      await this.refuse(
        req,
        res,
        new AppError(
          'insufficient_permission',
          'API access needs the Plus plan or above; this brand is on Free.',
        ),
      );
    }
    return identity as ApiIdentity;
  }

  /**
   * Runs a permission check of an admitted identity (one that throws
   * insufficient_permission), counting a refusal as forbidden_permission.
   */
  requirePermission(identity: Identity, check: (identity: Identity) => void): void {
    try {
      check(identity);
    } catch (err) {
      this.permissionRefused();
      throw err;
    }
  }

  /** Counts a key refused for lack of a permission where the check is not requirePermission's (MCP tools). */
  permissionRefused(): void {
    this.onFailure('forbidden_permission');
  }

  private async authenticate(req: IncomingMessage, res: ServerResponse): Promise<Identity> {
    const check = this.authenticator.check(req.headers.authorization);
    if (check.kind === 'known') return check.identity;
    // What usage counting learns of a key that was not admitted from the cache.
    const scope = scopeOf(res);
    if (check.kind === 'refused') {
      if (scope) {
        scope.keyRefusal = check.reason;
        scope.keyHash = check.keyHash;
      }
      this.onFailure(check.reason);
      return this.refuse(req, res, check.error);
    }
    if (scope) scope.keyHash = check.keyHash;
    try {
      return await this.authenticator.lookup(check.keyHash, requestIdOf(res), (ask) =>
        this.reserving(req, res, ask),
      );
    } catch (err) {
      if (isAppError(err) && err.code === 'invalid_key') this.onFailure('unknown_or_revoked');
      if (isAppError(err) && err.code === 'service_unavailable') this.onFailure('unavailable');
      if (!res.hasHeader('RateLimit')) {
        // A request that waited on another's lookup of the same key has not been charged: a
        // key found invalid costs it its unit as it cost the request that asked (past the
        // budget, 429), or many at once would cost one in all (a review, 2026-11-29); any other
        // failure only shows it its budget.
        if (isAppError(err) && err.code === 'invalid_key') return this.refuse(req, res, err);
        await this.chargeAddress(req, res, 0);
      }
      throw err;
    }
  }

  /**
   * Runs one remote key lookup on a reserved unit of the address budget, so concurrent
   * guesses stop at the budget. A key that proves valid, or a lookup that failed on our
   * side (service_unavailable), gives the unit back; an invalid key keeps it spent.
   */
  private async reserving(
    req: IncomingMessage,
    res: ServerResponse,
    ask: () => Promise<Identity>,
  ): Promise<Identity> {
    const reservation = await this.chargeAddress(req, res, 1);
    if (!reservation.allowed) throw rateLimitedError(reservation);
    try {
      const identity = await ask();
      await this.refundAddress(req, reservation);
      return identity;
    } catch (err) {
      if (!(isAppError(err) && err.code === 'invalid_key'))
        await this.refundAddress(req, reservation);
      throw err;
    }
  }

  /** Charges a failed authentication to the address; past its budget the answer is 429, not 401. */
  private async refuse(req: IncomingMessage, res: ServerResponse, error: AppError): Promise<never> {
    const decision = await this.chargeAddress(req, res, 1);
    throw decision.allowed ? error : rateLimitedError(decision);
  }

  private refundAddress(req: IncomingMessage, reservation: RateLimitDecision): Promise<void> {
    return this.limiter.refund(this.addressKey(req), reservation);
  }

  private addressKey(req: IncomingMessage): string {
    return `addr:${clientAddressKey(this.addressOf(req))}`;
  }

  private async chargeAddress(
    req: IncomingMessage,
    res: ServerResponse,
    cost: number,
  ): Promise<RateLimitDecision> {
    const decision = await this.limiter.consume(this.addressKey(req), this.anonymousLimit, cost);
    setRateLimitHeaders(res, 'anonymous', decision);
    return decision;
  }
}
