import type { handleUnaryCall, ServerUnaryCall } from '@grpc/grpc-js';
import { AppError, isAppError, toGrpcFailure } from '../errors';
import type { Logger } from '../logger';
import { REQUEST_ID_METADATA } from './metadata';

/** What a handler gets besides the request: the call and a logger bound to its request id. */
export interface CallContext<Req> {
  call: ServerUnaryCall<Req, unknown>;
  log: Logger;
}

/**
 * Adapts an async handler to grpc-js. An AppError becomes its gRPC status with the public
 * code in trailing metadata; anything else is logged with its stack and answered with a
 * generic INTERNAL, so no internals reach the caller.
 */
export function unary<Req, Res>(
  log: Logger,
  method: string,
  handler: (req: Req, ctx: CallContext<Req>) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const requestId = call.metadata.get(REQUEST_ID_METADATA)[0];
    const callLog = log.child({ rpc: method, request_id: requestId });
    handler(call.request, { call, log: callLog }).then(
      (res) => callback(null, res),
      (err: unknown) => {
        if (isAppError(err)) {
          if (err.code === 'internal_error' || err.code === 'service_unavailable') {
            callLog.error({ err, cause: err.cause }, err.message);
          }
          return callback(toGrpcFailure(err));
        }
        callLog.error({ err }, 'unhandled error in gRPC handler');
        return callback(
          toGrpcFailure(new AppError('internal_error', 'An internal error occurred.')),
        );
      },
    );
  };
}
