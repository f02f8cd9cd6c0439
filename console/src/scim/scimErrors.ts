import { status } from '@grpc/grpc-js';
import { SCIMMY } from 'scimmy-routers';
import { ServiceCallError } from '../clients/memberCaller';

/** An answer scimmy cannot give (its error messages allow no 429 or 503): set on the way out. */
export interface StatusOverride {
  status: 429 | 503;
  retryAfterSeconds: number;
}

/** What a refusal becomes: a SCIM error scimmy can send, and maybe a status to send instead. */
export interface ScimRefusal {
  error: Error;
  override?: StatusOverride;
}

/** scimmy's error; its type word is optional though its typings say otherwise. */
const scimmyError = (httpStatus: number, scimType: string | null, detail: string): Error =>
  new SCIMMY.Types.Error(httpStatus, scimType as string, detail);

/**
 * A records refusal as the SCIM error a provider understands (RFC 7644 3.12): a bad value 400
 * invalidValue, a taken userName or displayName 409 uniqueness, the last owner 409, a write made
 * from a stale version of the resource 412 (the provider reads again and retries), an unknown
 * id 404, a bad token 401, an answer too large to carry 400 tooMany (scimmy takes tooMany only
 * with 413; the endpoint answers it 400). Too many requests (429) and anything else (503:
 * records unreachable, or failing as in a deadlock, INTERNAL, UNKNOWN, ABORTED, CANCELLED, a
 * method it lacks during a rollout), which scimmy's error messages do not allow, become an
 * override the endpoint applies as the answer leaves, with Retry-After: the provider retries. Nothing is passed on as it came:
 * scimmy answers an error it does not know as 404 "Resource not found", and Okta and Entra ID
 * take a 404 to a DELETE for a user already gone and stop retrying (found by a review).
 */
export function scimRefusalOf(err: unknown): ScimRefusal {
  const overridden = (httpStatus: 429 | 503, detail: string, retryAfter?: number) => ({
    error: scimmyError(500, null, detail),
    override: { status: httpStatus, retryAfterSeconds: retryAfter ?? 5 },
  });
  const unavailable = (retryAfter?: number) =>
    overridden(503, 'The directory is unavailable; try again shortly.', retryAfter);
  if (err instanceof SCIMMY.Types.Error) return { error: err };
  // Input the handler read wrongly (scimmy's own reading of a TypeError, as isInputError below):
  // a 400, never a 503 the provider would retry forever.
  if (isInputError(err)) {
    return {
      error: scimmyError(400, 'invalidValue', 'The request holds a value of a wrong type.'),
    };
  }
  if (!(err instanceof ServiceCallError)) return unavailable();
  const as = (httpStatus: number, scimType: string | null): ScimRefusal => ({
    error: scimmyError(httpStatus, scimType, err.message),
  });
  switch (err.grpcStatus) {
    case status.INVALID_ARGUMENT:
      return as(400, 'invalidValue');
    case status.ALREADY_EXISTS:
      return as(409, 'uniqueness');
    case status.FAILED_PRECONDITION:
      // A write made from a stale read (a PATCH racing another change of the same resource, or
      // an If-Match naming an old version): 412, as RFC 7644 3.14 answers a version mismatch.
      return err.code === 'precondition_failed' ? as(412, null) : as(409, null);
    case status.NOT_FOUND:
      return as(404, null);
    case status.UNAUTHENTICATED:
      return as(401, null);
    case status.PERMISSION_DENIED:
      return as(403, null);
    case status.RESOURCE_EXHAUSTED:
      return overridden(429, err.message, err.retryAfterSeconds);
    case status.OUT_OF_RANGE:
      // An answer past the console's receive limit (toCallError; a page of groups with thousands
      // of members each), which asking again cannot change.
      return {
        error: scimmyError(
          413,
          'tooMany',
          'The answer is too large: ask for fewer resources a page (count), or leave out members (excludedAttributes=members).',
        ),
      };
    default:
      return unavailable(err.retryAfterSeconds);
  }
}

/**
 * What scimmy threw on input it does not check itself (Object.entries of a PATCH value null, a
 * path it splits though absent, `.toLowerCase` of a token an attribute list lacks): scimmy's own
 * reading of a TypeError is bad input (resources.js answers it 400 invalidValue where it catches
 * one). Any other error is ours, a 500.
 */
export const isInputError = (err: unknown): err is TypeError => err instanceof TypeError;

/**
 * Runs a call to records for a request, turning its refusals into SCIM errors (and noting on
 * the request's context the status to answer instead, when scimmy cannot send it).
 */
export async function scimCall<T>(
  ctx: { override?: StatusOverride },
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const refusal = scimRefusalOf(err);
    if (refusal.override) ctx.override = refusal.override;
    throw refusal.error;
  }
}

/** scimmy's 404 for an id the brand does not have. */
export const resourceNotFound = (id: string): Error =>
  scimmyError(404, null, `Resource ${id} not found`);
