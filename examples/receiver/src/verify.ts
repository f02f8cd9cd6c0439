import { timingSafeEqual } from 'node:crypto';
import { type DeliveryEvent, isEventType, parseEvent } from './event';
import { HEADERS, computeSignature } from './sign';

/** Why a delivery was refused. Stable words: safe to log and to branch on. */
export type RefusalReason =
  | 'missing_header'
  | 'malformed_header'
  | 'stale_timestamp'
  | 'bad_signature'
  | 'unselected_type'
  | 'malformed_body';

export type Verdict =
  | { ok: true; event: DeliveryEvent; attempt: number; timestamp: number }
  | { ok: false; status: 400 | 401 | 422; reason: RefusalReason; message: string };

/** Headers as node gives them (`req.headers`) or any plain object; names are matched case-insensitively. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyOptions {
  /** The endpoint's signing secret, or several while rotating: any one may match. */
  secret: string | readonly string[];
  headers: HeaderBag;
  /** The body bytes exactly as received, before any JSON parsing. */
  rawBody: Buffer | string;
  /** The clock to judge the timestamp by; defaults to the current time. */
  now?: Date;
  /** Accepted clock difference in either direction (SPEC 8: five minutes). */
  toleranceSeconds?: number;
  /** The event types this endpoint selected; anything else is refused. */
  acceptedTypes: readonly string[];
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const TIMESTAMP = /^\d{1,12}$/;
const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
const ATTEMPT = /^[1-9]\d{0,5}$/;
const EVENT_NAME = /^[a-z][a-z_]*\.[a-z_.]+$/;

function refuse(status: 400 | 401 | 422, reason: RefusalReason, message: string): Verdict {
  return { ok: false, status, reason, message };
}

/** The header's value; a header sent twice arrives as an array, which no rule accepts. */
function headerValue(headers: HeaderBag, name: string): string | readonly string[] | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

/** Each signed-delivery header and the exact format it must have. */
const FORMATS: ReadonlyArray<readonly [string, RegExp]> = [
  [HEADERS.event, EVENT_NAME],
  [HEADERS.timestamp, TIMESTAMP],
  [HEADERS.signature, SIGNATURE],
  [HEADERS.attempt, ATTEMPT],
];

/** The headers' values once all are present and well formed, else the refusal to answer. */
function readHeaders(headers: HeaderBag): Map<string, string> | Verdict {
  // Every missing header is reported before any malformed one: the most basic problem first.
  for (const [name] of FORMATS) {
    const value = headerValue(headers, name);
    if (value === undefined || value === '') {
      return refuse(400, 'missing_header', `${name} is missing`);
    }
  }
  const values = new Map<string, string>();
  for (const [name, format] of FORMATS) {
    const value = headerValue(headers, name);
    if (typeof value !== 'string' || !format.test(value)) {
      return refuse(400, 'malformed_header', `${name} is malformed`);
    }
    values.set(name, value);
  }
  return values;
}

/** Constant-time comparison against every secret; both digests are 32 bytes by construction. */
function signatureMatches(
  secrets: readonly string[],
  timestamp: string,
  rawBody: Buffer | string,
  digestHex: string,
): boolean {
  const received = Buffer.from(digestHex, 'hex');
  let matched = false;
  for (const secret of secrets) {
    const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), 'hex');
    // No early exit: the time taken does not reveal which secret (if any) matched.
    if (expected.length === received.length && timingSafeEqual(expected, received)) {
      matched = true;
    }
  }
  return matched;
}

/**
 * Verifies one delivery by the rules of SPEC 6.3, in order: headers present and well
 * formed; timestamp within `toleranceSeconds` of `now` either way; HMAC-SHA256 over
 * `<timestamp>.<raw body>` equal (constant time) for one of the secrets; then the
 * body is parsed, its `type` must equal X-Service-Event and be one of `acceptedTypes`.
 *
 * Never throws on bad input: every refusal is a result with the HTTP status to answer
 * (400 malformed, 401 not authentic or stale, 422 authentic but not selected).
 */
export function verifyDelivery(options: VerifyOptions): Verdict {
  const { headers, rawBody } = options;
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;

  const values = readHeaders(headers);
  if (!(values instanceof Map)) return values;
  const eventHeader = values.get(HEADERS.event) ?? '';
  const timestampHeader = values.get(HEADERS.timestamp) ?? '';
  const signatureHeader = values.get(HEADERS.signature) ?? '';
  const attempt = Number(values.get(HEADERS.attempt));

  if (secrets.length === 0) return refuse(401, 'bad_signature', 'no signing secret configured');

  const timestamp = Number(timestampHeader);
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    return refuse(401, 'stale_timestamp', `timestamp is more than ${tolerance} s from now`);
  }

  const digestHex = SIGNATURE.exec(signatureHeader)?.[1] ?? '';
  if (!signatureMatches(secrets, timestampHeader, rawBody, digestHex)) {
    return refuse(401, 'bad_signature', 'signature does not match');
  }

  // Only now is the body trusted enough to parse.
  const text = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const event = parseEvent(text);
  if (!event) return refuse(400, 'malformed_body', 'body is not a delivery event');
  // The header is not signed; the body is. A disagreement means the header was altered.
  if (event.type !== eventHeader) {
    return refuse(400, 'malformed_header', `${HEADERS.event} does not match the body's type`);
  }
  // A type we may add later is refused like an unselected one, never as malformed.
  const type = event.type;
  if (!isEventType(type) || !options.acceptedTypes.includes(type)) {
    return refuse(422, 'unselected_type', `event type ${event.type} is not selected`);
  }
  return { ok: true, event: { ...event, type }, attempt, timestamp };
}
