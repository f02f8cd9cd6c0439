import type { KeyObject } from 'node:crypto';
import type { handleUnaryCall, Metadata, ServerUnaryCall } from '@grpc/grpc-js';
import type { Actor } from '../console/actor';
import { MemberAssertionError, verifyMemberAssertion } from '../console/memberAssertion';
import { MEMBER_ASSERTION_METADATA } from '../console/metadata';
import { AppError, toGrpcFailure } from '../errors';
import type { Logger } from '../logger';
import type { RpcObserver } from '../metrics/grpcServerMetrics';
import type { AccessLevel, CallerAuth, CallerClass } from './callerAuth';
import { bidiStream, type StreamHandler } from './bidiStream';
import { originOfMetadata, peerAddress, withCallOrigin } from '../grpcClient/clientOrigin';
import { classifyFailure, logFailure } from './failure';
import { REQUEST_ID_METADATA, safeRequestId } from '../grpcClient/metadata';

/** What a handler gets besides the request: the call and a logger bound to its request id. */
export interface CallContext<Req> {
  call: ServerUnaryCall<Req, unknown>;
  log: Logger;
  /** The caller's request id when it sent a safe one, for logs and downstream calls. */
  requestId: string | undefined;
  /** Who is calling: an operator, a member through the console (verified), a service, the console. */
  actor: Actor;
}

export type RpcHandler<Req, Res> = (req: Req, ctx: CallContext<Req>) => Promise<Res>;

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
  /**
   * The records service's Ed25519 public keys (current first) that member assertions are
   * checked with; without them every console call on a `developers` RPC is refused.
   */
  memberAssertionKeys?: readonly KeyObject[];
}

/**
 * The actor of a call whose credential passed: on a `developers` RPC the console must also
 * present a valid member assertion, and the member it names is the actor.
 */
function actorOf(
  deps: RpcDeps,
  level: AccessLevel,
  caller: CallerClass,
  metadata: Metadata,
): Actor {
  if (caller === 'admin') return { kind: 'operator' };
  if (caller === 'internal') return { kind: 'service' };
  if (level !== 'developers') return { kind: 'console' };
  const presented = metadata.get(MEMBER_ASSERTION_METADATA)[0];
  if (typeof presented !== 'string' || presented === '') {
    throw new AppError(
      'unauthenticated',
      `The console must act for a member (${MEMBER_ASSERTION_METADATA} metadata).`,
    );
  }
  if (!deps.memberAssertionKeys || deps.memberAssertionKeys.length === 0) {
    throw new AppError('unauthenticated', 'This service is not configured for the console.');
  }
  try {
    return { kind: 'member', member: verifyMemberAssertion(deps.memberAssertionKeys, presented) };
  } catch (err) {
    if (err instanceof MemberAssertionError) throw new AppError('unauthenticated', err.message);
    throw err;
  }
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
      const caller = deps.auth.check(call.metadata, level);
      const actor = actorOf(deps, level, caller, call.metadata);
      // The client the console served (its metadata); for an operator's own call (brandctl),
      // the address it connected from: every activity row the call writes carries it.
      const origin = originOfMetadata(call.metadata);
      if (caller === 'admin' && origin.clientAddress === '') {
        origin.clientAddress = peerAddress(call.getPeer());
      }
      return withCallOrigin(origin, () => handler(call.request, { call, log, requestId, actor }));
    };
    run().then(
      (res) => {
        observe('ok');
        callback(null, res);
      },
      (err: unknown) => {
        const failure = classifyFailure(err);
        observe(failure.code);
        logFailure(log, failure);
        callback(toGrpcFailure(failure));
      },
    );
  };
}

/**
 * The handler builders of one service: `rpc.internal('ListRecordsPage', fn)` for data-plane
 * RPCs, `rpc.admin('CreateBrand', fn)` for operators only, `rpc.developers('CreateKey', fn)`
 * for the Developers area (operators, or the console for a member: the handler authorizes
 * ctx.actor), `rpc.console('RedeemSignInLink', fn)` for the console alone.
 */
export function rpcBuilder(deps: RpcDeps) {
  return {
    internal: <Req, Res>(method: string, handler: RpcHandler<Req, Res>) =>
      unary(deps, 'internal', method, handler),
    admin: <Req, Res>(method: string, handler: RpcHandler<Req, Res>) =>
      unary(deps, 'admin', method, handler),
    developers: <Req, Res>(method: string, handler: RpcHandler<Req, Res>) =>
      unary(deps, 'developers', method, handler),
    console: <Req, Res>(method: string, handler: RpcHandler<Req, Res>) =>
      unary(deps, 'console', method, handler),
    /** A long-lived bidirectional stream of a data-plane RPC (the caller checked once, at open). */
    internalStream: <Req, Res>(method: string, handler: StreamHandler<Req, Res>) =>
      bidiStream(deps, 'internal', method, handler),
  };
}
export type RpcBuilder = ReturnType<typeof rpcBuilder>;
