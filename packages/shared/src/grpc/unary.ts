import type { handleUnaryCall, ServerUnaryCall } from '@grpc/grpc-js';
import { AppError, isAppError, toGrpcFailure } from '../errors';
import { isDatabaseUnavailable } from '../db/pgErrors';
import type { Logger } from '../logger';
import type { RpcObserver } from '../metrics/grpcServerMetrics';
import type { AccessLevel, CallerAuth } from './callerAuth';
import { REQUEST_ID_METADATA, safeRequestId } from './metadata';

/** What a handler gets besides the request: the call and a logger bound to its request id. */
export interface CallContext<Req> {
  call: ServerUnaryCall<Req, unknown>;
  log: Logger;
  /** The caller's request id when it sent a safe one, for logs and downstream calls. */
  requestId: string | undefined;
}

export type RpcHandler<Req, Res> = (req: Req, ctx: CallContext<Req>) => Promise<Res>;

/**
 * Classifies any failure once, at the gRPC boundary: an AppError passes through, an
 * unreachable database is service_unavailable (503 and retry), anything else
 * internal_error. Handlers and services just throw; no call site wraps its own.
 */
export function classifyFailure(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError(
      'service_unavailable',
      'A data store is temporarily unavailable; retry shortly.',
      { cause: err, retryAfterSeconds: 2 },
    );
  }
  return new AppError('internal_error', 'An internal error occurred.', { cause: err });
}

/**
 * Adapts an async handler to grpc-js, checking the caller's credential first. An AppError
 * becomes its gRPC status with the public code in trailing metadata; 5xx failures are
 * logged with their cause and answered without it, so no internals reach the caller.
 */
export interface RpcDeps {
  log: Logger;
  auth: CallerAuth;
  /** Counts and times every call by method and outcome (the service's /metrics). */
  metrics?: RpcObserver;
}

export function unary<Req, Res>(
  deps: RpcDeps,
  level: AccessLevel,
  method: string,
  handler: RpcHandler<Req, Res>,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const started = performance.now();
    const observe = (code: string): void =>
      deps.metrics?.observe(method, code, (performance.now() - started) / 1000);
    const requestId = safeRequestId(call.metadata.get(REQUEST_ID_METADATA)[0]);
    const log = deps.log.child({ rpc: method, request_id: requestId });
    const run = async (): Promise<Res> => {
      deps.auth.check(call.metadata, level);
      return handler(call.request, { call, log, requestId });
    };
    run().then(
      (res) => {
        observe('ok');
        callback(null, res);
      },
      (err: unknown) => {
        const failure = classifyFailure(err);
        observe(failure.code);
        if (failure.code === 'internal_error' || failure.code === 'service_unavailable') {
          log.error({ err: failure.cause ?? failure }, failure.message);
        }
        callback(toGrpcFailure(failure));
      },
    );
  };
}

/**
 * The handler builders of one service: `rpc.internal('ListRecordsPage', fn)` for data-plane
 * RPCs, `rpc.admin('CreateKey', fn)` for the Developers area. Every RPC is one or the other.
 */
export function rpcBuilder(deps: RpcDeps) {
  return {
    internal: <Req, Res>(method: string, handler: RpcHandler<Req, Res>) =>
      unary(deps, 'internal', method, handler),
    admin: <Req, Res>(method: string, handler: RpcHandler<Req, Res>) =>
      unary(deps, 'admin', method, handler),
  };
}
export type RpcBuilder = ReturnType<typeof rpcBuilder>;
