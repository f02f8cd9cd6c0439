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
 * invalidValue, a taken userName or displayName 409 uniqueness, the last owner 409, an unknown
 * id 404, a bad token 401. Too many requests (429) and records unreachable (503), which scimmy's
 * error messages do not allow, become an override the endpoint applies as the answer leaves.
 * Anything else is passed on (the router answers 500 and logs it).
 */
export function scimRefusalOf(err: unknown): ScimRefusal {
  if (!(err instanceof ServiceCallError)) {
    return { error: err instanceof Error ? err : new Error(String(err)) };
  }
  const as = (httpStatus: number, scimType: string | null): ScimRefusal => ({
    error: scimmyError(httpStatus, scimType, err.message),
  });
  const overridden = (httpStatus: 429 | 503, detail: string): ScimRefusal => ({
    error: scimmyError(500, null, detail),
    override: { status: httpStatus, retryAfterSeconds: err.retryAfterSeconds ?? 5 },
  });
  switch (err.grpcStatus) {
    case status.INVALID_ARGUMENT:
      return as(400, 'invalidValue');
    case status.ALREADY_EXISTS:
      return as(409, 'uniqueness');
    case status.FAILED_PRECONDITION:
      return as(409, null);
    case status.NOT_FOUND:
      return as(404, null);
    case status.UNAUTHENTICATED:
      return as(401, null);
    case status.PERMISSION_DENIED:
      return as(403, null);
    case status.RESOURCE_EXHAUSTED:
      return overridden(429, err.message);
    case status.UNAVAILABLE:
    case status.DEADLINE_EXCEEDED:
      return overridden(503, 'The directory is unavailable; try again shortly.');
    default:
      return { error: err };
  }
}

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
