import type { SignedHeaderValues } from './deliveryHeaders.js';
import type { WebhookHeaders } from './headerValue.js';
import { anySecretMatches, hexBytes, signedPayload } from './hmac.js';
import { rawBodyBytes, type WebhookRawBody } from './rawBody.js';
import { WebhookVerificationError } from './verificationError.js';

/** docs/contract.md#receiver-verification rule 4, #limits: five minutes either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** What verifying any signed request takes: a webhook delivery and an audit stream run alike. */
export interface SignedRequestOptions {
  /** The body exactly as received, before any parsing. */
  rawBody: WebhookRawBody;
  /** The request's headers (Headers, Node's req.headers, or a plain object; any letter case). */
  headers: WebhookHeaders;
  /** The signing secret (`whsec_...`), or several while rotating: any one may match. */
  secret: string | readonly string[];
  /** Accepted clock difference either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The clock to judge the timestamp by (default the current time). */
  now?: Date;
}

/** The options checked: the body's bytes, the secrets, the tolerance and the clock in seconds. */
export interface SigningCheck {
  body: Uint8Array;
  secrets: readonly string[];
  tolerance: number;
  nowSeconds: number;
}

/**
 * The secrets to try. Checked at run time, not only by the types: `process.env.X!` compiles
 * whatever the environment holds, so an unset variable arrives here as undefined, alone or in
 * a list. Every entry must be a non-empty string: a list with a hole is a misconfiguration
 * (a rotation's new secret unset would otherwise pass unnoticed on the old one alone).
 */
function secretsOf(secret: unknown): string[] {
  const list: unknown[] = Array.isArray(secret) ? secret : [secret];
  if (list.length === 0) {
    throw new WebhookVerificationError('no_secret', 'no signing secret is configured');
  }
  list.forEach((s, i) => {
    if (typeof s !== 'string' || s.length === 0) {
      const which = Array.isArray(secret) ? `secret[${i}]` : 'secret';
      const got = s === undefined ? 'undefined (is its environment variable set?)' : typeof s;
      throw new WebhookVerificationError(
        'no_secret',
        `${which} must be a non-empty string, got ${s === '' ? 'an empty string' : got}`,
      );
    }
  });
  return list as string[];
}

/**
 * The caller's options, checked before anything of the request is: options and headers present
 * (TypeError), the raw body (body_not_raw), the tolerance and the clock (TypeError: programming
 * errors), the secrets (no_secret). `caller`
 * names the function in a TypeError's message.
 */
export function signingCheck(options: SignedRequestOptions, caller: string): SigningCheck {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${caller}: options are required ({ rawBody, headers, secret, ... }).`);
  }
  // Checked here, not left to the header reads: null or a string there is a raw TypeError.
  if (typeof options.headers !== 'object' || options.headers === null) {
    throw new TypeError(
      `${caller}: headers must be the request's headers (a Headers or a plain object, such as Node's req.headers).`,
    );
  }
  const body = rawBodyBytes(options.rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(Number.isFinite(tolerance) && tolerance >= 0)) {
    throw new TypeError(`${caller}: toleranceSeconds must be a number, 0 or more.`);
  }
  const nowMs = (options.now ?? new Date()).getTime();
  // An invalid Date would make both window comparisons false and admit any timestamp.
  if (!Number.isFinite(nowMs)) throw new TypeError(`${caller}: now must be a valid Date.`);
  return {
    body,
    secrets: secretsOf(options.secret),
    tolerance,
    nowSeconds: Math.floor(nowMs / 1000),
  };
}

/**
 * Rules 2 to 4 of docs/contract.md#receiver-verification on headers already read: the
 * timestamp within the tolerance either way (first, so a stale replay is refused even when
 * authentic), then HMAC-SHA256 over `<timestamp>.<raw body>` equal, in constant time, for one of
 * the secrets. Returns the timestamp in Unix seconds; throws WebhookVerificationError.
 */
export async function checkSignature(
  check: SigningCheck,
  signed: SignedHeaderValues,
): Promise<number> {
  const timestamp = Number(signed.timestamp);
  const { tolerance, nowSeconds } = check;
  if (nowSeconds - timestamp > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `timestamp is more than ${tolerance} s old`,
    );
  }
  if (timestamp - nowSeconds > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `timestamp is more than ${tolerance} s ahead`,
    );
  }
  const payload = signedPayload(signed.timestamp, check.body);
  if (!(await anySecretMatches(check.secrets, payload, hexBytes(signed.digestHex)))) {
    throw new WebhookVerificationError('signature_mismatch', 'signature does not match');
  }
  return timestamp;
}
