import type { IncomingMessage, ServerResponse } from 'node:http';
import { UsageSurface } from '@brand/proto/access/v1/usage';
import type { AddressOf } from '../auth/requestAddress';
import type { RequestScope } from '../http/requestScope';
import type { AddressBrands } from './addressBrands';
import { outcomeOf, statusOf } from './usageOutcome';
import type { UsageBuffer } from './usageBuffer';
import { safePath } from './safePath';

export interface UsageRecorderDeps {
  buffer: UsageBuffer;
  addresses: AddressBrands;
  addressOf: AddressOf;
  /** The route label the assistant endpoint sets (its requests are the "assistant" surface). */
  assistantRoute: string;
  now?: () => number;
}

/**
 * Counting usage, in the one place every request passes (the request prelude calls observe):
 * when the response is done, the request is counted in the in-memory buffer (no await, no
 * round trip) under what admission learned, and a refused or failed one is kept for the log.
 * Requests that never reached admission (health, the OpenAPI file, unknown routes) belong
 * to no brand and are not counted. Attribution (records applies it at ingest):
 * - an admitted key: its brand and key; the client address is remembered for that brand;
 * - a refused well-formed key: its hash (never the key), resolved by records to its owner;
 * - no key, a malformed one: the brand the address was recently admitted for, if any.
 */
export class UsageRecorder {
  private readonly now: () => number;

  constructor(private readonly deps: UsageRecorderDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Counts a finished request (the prelude calls it when the response is done). */
  observe(req: IncomingMessage, res: ServerResponse, scope: RequestScope): void {
    const { keyId, keyHash, keyRefusal } = scope;
    if (keyId === undefined && keyHash === undefined && keyRefusal === undefined) return;
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    const surface =
      scope.route === this.deps.assistantRoute
        ? UsageSurface.USAGE_SURFACE_ASSISTANT
        : UsageSurface.USAGE_SURFACE_REST;
    const status = res.statusCode;
    const outcome = outcomeOf(status, scope.errorCode);
    const address = this.deps.addressOf(req);
    // The subject: an admitted key (by its id), a refused key (by its hash), or no key of the
    // brand (by the address's brand); plain strings, so counting a known key allocates nothing.
    let subjectKey: string;
    let brandId = '';
    let countedKeyId = '';
    let countedHash = '';
    let addressBrandId = '';
    if (keyId !== undefined && scope.brandId !== undefined) {
      brandId = scope.brandId;
      countedKeyId = keyId;
      // a key refused here (its networks, its tier) vouches for no address: a leaked key used
      // from elsewhere would otherwise have every keyless request from there filed under the
      // brand, and the request log's cap trim the brand's own rows (a review, 2026-11-29)
      if (scope.keyRefusedHere !== true) this.deps.addresses.admitted(address, brandId, now);
      subjectKey = keyId;
    } else {
      addressBrandId = this.deps.addresses.brandOf(address);
      if (keyHash !== undefined) {
        subjectKey = countedHash = keyHash;
      } else {
        if (addressBrandId === '') return;
        subjectKey = `address:${addressBrandId}`;
      }
    }
    const { buffer } = this.deps;
    const count = (counted: string, n: number): void =>
      buffer.count(
        subjectKey,
        brandId,
        countedKeyId,
        countedHash,
        addressBrandId,
        minute,
        surface,
        counted,
        n,
      );
    let units = scope.units ?? 1;
    // An assistant message whose tool call failed inside a 200 counts under its own code.
    for (const code of scope.toolErrors ?? NO_TOOL_ERRORS) {
      count(outcomeOf(statusOf(code), code), 1);
      units -= 1;
    }
    if (units > 0) count(outcome, units);
    const errorCode = scope.errorCode ?? scope.toolErrors?.[0];
    if (status >= 400 || errorCode !== undefined) {
      this.deps.buffer.logRequest({
        at: now,
        brand_id: keyId !== undefined ? (scope.brandId ?? '') : '',
        key_id: keyId ?? '',
        key_hash: keyId !== undefined ? '' : (keyHash ?? ''),
        address_brand_id: addressBrandId,
        method: (req.method ?? '').slice(0, 16),
        path: safePath((req as { originalUrl?: string }).originalUrl ?? req.url),
        status: status >= 400 ? status : statusOf(errorCode ?? 'internal_error'),
        error_code: errorCode ?? '',
        request_id: scope.requestId.slice(0, 128),
        surface,
        gateway_reason: gatewayReason(scope),
        // where a refused key came from (issue 63), as TRUST_PROXY reads it
        client_address: (address ?? '').slice(0, 64),
      });
    }
  }
}

const NO_TOOL_ERRORS: readonly string[] = [];

/** What the gateway itself knows of a refused key, for the owner-only reason. */
function gatewayReason(scope: RequestScope): string {
  switch (scope.keyRefusal) {
    case 'missing':
    case 'wrong_scheme':
      return 'no_key';
    case 'malformed':
      return 'malformed';
    case 'wrong_environment':
      return 'wrong_environment';
    default:
      return '';
  }
}
