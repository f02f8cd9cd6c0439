import { status, type ServiceError } from '@grpc/grpc-js';
import { ERROR_CODE_METADATA, isAppError } from '@brand/shared/errors';
import type { Failure } from './output';
import { UsageError } from './usageError';

/** Exit codes: 0 success, 1 refused or invalid, 2 usage (commander), 3 service unreachable. */
export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

/** The service a command talks to, named in "cannot reach" messages. */
export type ServiceName = 'records' | 'plans' | 'webhooks' | 'gateway';

export interface Outcome {
  failure: Failure;
  exitCode: (typeof EXIT)['refused' | 'usage' | 'unreachable'];
}

/**
 * Turns whatever a command threw into what the operator sees. The service's own refusals
 * keep its code and message (they say which condition failed). service_unavailable exits 3;
 * when no service answered at all, the message says where brandctl looked and how to
 * start the stack, since the generic transport message would not help anyone.
 */
export function describeFailure(
  err: unknown,
  address: string,
  timeoutMs: number,
  service: ServiceName = 'records',
  secret?: string,
): Outcome {
  const outcome = classify(err, address, timeoutMs, service);
  outcome.failure.message = redact(outcome.failure.message, secret);
  return outcome;
}

/**
 * A message with the admin token, and any metadata value gRPC quotes in its refusals
 * ('Metadata string value "..." contains illegal characters'), replaced: brandctl never
 * prints the token, whatever a library puts in an error.
 */
function redact(message: string, secret: string | undefined): string {
  let out = message.replace(/(Metadata (?:string|key) value )"[^"]*"/g, '$1"[redacted]"');
  if (secret !== undefined && secret !== '') out = out.split(secret).join('[redacted]');
  return out;
}

function classify(err: unknown, address: string, timeoutMs: number, service: ServiceName): Outcome {
  if (err instanceof UsageError)
    return { failure: { code: 'usage', message: err.message }, exitCode: EXIT.usage };
  if (!isAppError(err)) {
    const message = err instanceof Error ? err.message : String(err);
    return { failure: { code: 'internal_error', message }, exitCode: EXIT.refused };
  }
  if (err.code !== 'service_unavailable') {
    const failure: Failure = { code: err.code, message: err.message };
    if (err.details !== undefined) failure.details = err.details;
    return { failure, exitCode: EXIT.refused };
  }
  const transport = transportError(err.cause);
  let message = err.message;
  if (transport?.code === status.DEADLINE_EXCEEDED) {
    message = `the ${service} service at ${address} did not answer within ${timeoutMs} ms; is it running? (npm run up)`;
  } else if (transport !== undefined) {
    message = `cannot reach the ${service} service at ${address}; is it running? (npm run up)`;
  }
  return { failure: { code: 'service_unavailable', message }, exitCode: EXIT.unreachable };
}

/** The gRPC error behind an AppError, unless the service itself sent the code. */
function transportError(cause: unknown): ServiceError | undefined {
  if (typeof cause !== 'object' || cause === null || !('code' in cause)) return undefined;
  const err = cause as ServiceError;
  const sentByService = err.metadata?.get(ERROR_CODE_METADATA).length > 0;
  return sentByService ? undefined : err;
}
