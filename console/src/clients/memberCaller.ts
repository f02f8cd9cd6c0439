import { Metadata, status, type Client, type ServiceError } from '@grpc/grpc-js';
import { MEMBER_ASSERTION_METADATA } from '@brand/shared/console';
import { ERROR_CODE_METADATA, RETRY_AFTER_METADATA } from '@brand/shared/errors';
import {
  INTERNAL_TOKEN_METADATA,
  REQUEST_ID_METADATA,
  setOriginMetadata,
  type MethodOf,
  type RequestOf,
  type ResponseOf,
} from '@brand/shared/grpc';

/**
 * A refused or failed call, as the console renders it: the gRPC status decides the page
 * (NOT_FOUND 404, PERMISSION_DENIED 403, a refused form 4xx, UNAVAILABLE 503), the service's
 * own code and message say why. A peer that sent no code of ours gets a generic message.
 */
export class ServiceCallError extends Error {
  override readonly name = ServiceCallError.name;
  constructor(
    readonly grpcStatus: status,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}

/** The member assertion the call is made with; absent only for signing in. */
interface CallContext {
  assertion?: string;
  requestId?: string;
}

export type MemberCaller<C> = <M extends MethodOf<C>>(
  method: M,
  request: RequestOf<C[M]>,
  context?: CallContext,
) => Promise<ResponseOf<C[M]>>;

type UnaryMethod = (
  request: unknown,
  metadata: Metadata,
  options: { deadline: Date },
  callback: (err: ServiceError | null, response: unknown) => void,
) => unknown;

/**
 * Calls one RPC with the console's credential, a deadline and, when given, the member
 * assertion: the owning service checks the member's role itself (packages/shared/src/console).
 * Rejects with ServiceCallError.
 */
export function createMemberCaller<C extends Client>(
  client: C,
  settings: { token: string; deadlineMs: number },
): MemberCaller<C> {
  return (method, request, context = {}) => {
    const metadata = new Metadata();
    metadata.set(INTERNAL_TOKEN_METADATA, settings.token);
    if (context.assertion) metadata.set(MEMBER_ASSERTION_METADATA, context.assertion);
    if (context.requestId) metadata.set(REQUEST_ID_METADATA, context.requestId);
    // the browser this request serves, for the activity rows the call may write
    setOriginMetadata(metadata);
    const fn = client[method] as unknown as UnaryMethod;
    return new Promise((resolve, reject) => {
      fn.call(
        client,
        request,
        metadata,
        { deadline: new Date(Date.now() + settings.deadlineMs) },
        (err, res) =>
          err ? reject(toCallError(err)) : resolve(res as ResponseOf<C[typeof method]>),
      );
    });
  };
}

/**
 * A service's error as the console's pages read it: the service's own code and sentence when it
 * sent them; else an outage, a method the service does not have yet, or a failure of ours.
 */
export function toCallError(err: ServiceError): ServiceCallError {
  const code = err.metadata?.get(ERROR_CODE_METADATA)[0];
  const retry = err.metadata?.get(RETRY_AFTER_METADATA)[0];
  const retryAfter =
    typeof retry === 'string' && /^\d{1,6}$/.test(retry) ? Number(retry) : undefined;
  if (typeof code === 'string' && /^[a-z_]{1,64}$/.test(code)) {
    return new ServiceCallError(err.code, code, err.details, retryAfter);
  }
  const unavailable = [status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.CANCELLED].includes(
    err.code,
  );
  // Without a service's code, RESOURCE_EXHAUSTED is grpc-js refusing an answer past this
  // client's receive limit: not the service's rate limit (its refusal carries rate_limited), and
  // asking again gets the same answer. OUT_OF_RANGE keeps it apart from every rate-limit mapping.
  if (err.code === status.RESOURCE_EXHAUSTED) {
    return new ServiceCallError(
      status.OUT_OF_RANGE,
      'answer_too_large',
      'The answer is larger than this client takes.',
      undefined,
    );
  }
  // A method this release added, asked of a service still on the previous one (a rolling
  // upgrade rolls processes in no fixed order): over in minutes, so a 503 to retry, not a 500.
  // The status stays UNIMPLEMENTED for a page that can do without the method (signIn/linkAddress).
  if (err.code === status.UNIMPLEMENTED) {
    return new ServiceCallError(
      status.UNIMPLEMENTED,
      'service_unavailable',
      'This part of the service is being updated. Try again in a few minutes.',
      60,
    );
  }
  return unavailable
    ? new ServiceCallError(
        status.UNAVAILABLE,
        'service_unavailable',
        'A service is temporarily unavailable. Try again in a moment.',
        1,
      )
    : new ServiceCallError(
        err.code,
        'internal_error',
        'Something went wrong on our side.',
        undefined,
      );
}
