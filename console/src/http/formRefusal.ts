import { status } from '@grpc/grpc-js';
import { ServiceCallError } from '../clients/memberCaller';

/**
 * A service's refusal of a form (bad value, unmet condition, role), shown on the form with
 * the service's own sentence; undefined for anything else (404s and outages go to the error page).
 */
export function formRefusal(
  err: unknown,
): { httpStatus: number; message: string; code: string } | undefined {
  if (!(err instanceof ServiceCallError)) return undefined;
  const httpStatus = {
    [status.INVALID_ARGUMENT]: 400,
    [status.PERMISSION_DENIED]: 403,
    [status.ALREADY_EXISTS]: 409,
    [status.FAILED_PRECONDITION]: 422,
    [status.RESOURCE_EXHAUSTED]: 429,
  }[err.grpcStatus as number];
  return httpStatus ? { httpStatus, message: err.message, code: err.code } : undefined;
}
