import { AppError, isAppError } from '@brand/shared/errors';
import { compileNetworks, hashApiKey, type KeyEnvironment } from '@brand/shared/keys';
import type { RecordsApi } from '../clients/recordsClient';
import { TIERS } from '@brand/shared/enums';
import type { AuthFailureReason } from '../http/authFailureReason';
import { readBearerKey, type KeyRefusal } from './bearer';
import type { Identity } from './identity';
import type { KeyCache } from './keyCache';
import type { SharedProvenKeys } from './sharedProvenKeys';

/** The outcome of reading a request's key, before any remote lookup. */
export type KeyCheck =
  | { kind: 'known'; identity: Identity }
  | { kind: 'unknown'; keyHash: string }
  | { kind: 'refused'; error: AppError; reason: AuthFailureReason; keyHash?: string };

/**
 * Authentication in one place, for REST and MCP alike. `check` is synchronous and never
 * leaves the process (header shape, environment, cache); `lookup` asks the records
 * service. Splitting them lets the caller apply the per-address limit before a lookup.
 */
export class Authenticator {
  constructor(
    private readonly records: RecordsApi,
    private readonly cache: KeyCache,
    private readonly environment: KeyEnvironment,
    /** The keys proven on any gateway (sharedProvenKeys.ts); without it, this process's own. */
    private readonly shared?: SharedProvenKeys,
  ) {}

  check(authorization: string | undefined): KeyCheck {
    let key: string;
    try {
      key = readBearerKey(authorization, this.environment);
    } catch (err) {
      const refusal = err as KeyRefusal;
      // A key of the other environment is still a key: its hash lets usage attribute the
      // refusal to the brand that owns it ("a test key used against live").
      const keyHash =
        refusal.reason === 'wrong_environment' && authorization !== undefined
          ? hashApiKey(authorization.slice('Bearer '.length).trim())
          : undefined;
      return { kind: 'refused', error: refusal, reason: refusal.reason, keyHash };
    }
    const keyHash = hashApiKey(key);
    const identity = this.cache.get(keyHash);
    return identity ? { kind: 'known', identity } : { kind: 'unknown', keyHash };
  }

  /**
   * Resolves a key hash through the records service, once for all concurrent callers.
   * `around` wraps that one remote lookup (the gate reserves address budget there), so it
   * runs once per lookup, not once per waiting request.
   * Throws invalid_key, service_unavailable, or whatever `around` throws.
   */
  lookup(
    keyHash: string,
    requestId: string,
    around: (ask: () => Promise<Identity>) => Promise<Identity> = (ask) => ask(),
  ): Promise<Identity> {
    return this.cache.resolve(keyHash, async () => {
      const ask = (): Promise<Identity> => this.ask(keyHash, requestId);
      try {
        // A key proven valid recently is looked up without `around` (the address
        // reservation): it still goes to the records service, so a revocation holds, but
        // guesses from its address cannot lock it out. Unknown keys keep the reservation; one
        // another gateway proved is asked for only when the reservation was refused.
        const identity = await (this.cache.isProven(keyHash)
          ? ask()
          : around(ask).catch(async (err: unknown) => {
              const spent = isAppError(err) && err.code === 'rate_limited';
              if (spent && (await this.shared?.has(keyHash))) return ask();
              throw err;
            }));
        this.cache.markProven(keyHash);
        this.shared?.add(keyHash);
        return identity;
      } catch (err) {
        if (isAppError(err) && err.code === 'invalid_key') {
          this.cache.forgetProven(keyHash);
          this.shared?.remove(keyHash);
        }
        throw err;
      }
    });
  }

  private async ask(keyHash: string, requestId: string): Promise<Identity> {
    const found = await this.records.authenticateKey(keyHash, this.environment, requestId);
    const tier = TIERS.fromProto(found.tier);
    if (tier === undefined) throw new AppError('internal_error', 'The key has no valid tier.');
    return {
      keyId: found.key_id,
      brandId: found.brand_id,
      tier,
      permissions: new Set(found.permissions),
      expiresAtMs: found.expires_at === undefined ? undefined : Date.parse(found.expires_at),
      fromNetworks:
        found.allowed_networks.length === 0 ? undefined : compileNetworks(found.allowed_networks),
    };
  }
}
