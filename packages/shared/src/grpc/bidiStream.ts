import { Metadata, type handleBidiStreamingCall, type ServerDuplexStream } from '@grpc/grpc-js';
import { toGrpcFailure } from '../errors';
import type { Logger } from '../logger';
import type { AccessLevel, CallerAuth } from './callerAuth';
import { classifyFailure } from './failure';

/** What a long-lived stream's handler gets: the call, authenticated, and a logger. */
export interface StreamContext {
  log: Logger;
}

export type StreamHandler<Req, Res> = (
  call: ServerDuplexStream<Req, Res>,
  ctx: StreamContext,
) => void;

/**
 * Adapts a bidirectional stream handler to grpc-js, checking the caller's credential once,
 * when the stream opens: a stream is one HTTP/2 stream of one connection, so every message on
 * it comes from the peer that presented the credential, and nothing can be slipped into it by
 * another. A refused caller gets the failure status and the handler never runs. Accepted,
 * the response headers go out at once, so the caller knows the stream is up before it has an
 * answer (a long-lived stream has none to wait for). Only data-plane levels: admin and the
 * console act per call, with per-call assertions.
 */
export function bidiStream<Req, Res>(
  deps: { log: Logger; auth: CallerAuth },
  level: Extract<AccessLevel, 'internal'>,
  method: string,
  handler: StreamHandler<Req, Res>,
): handleBidiStreamingCall<Req, Res> {
  return (call) => {
    const log = deps.log.child({ rpc: method });
    try {
      deps.auth.check(call.metadata, level);
    } catch (err) {
      call.emit('error', toGrpcFailure(classifyFailure(err)));
      return;
    }
    call.sendMetadata(new Metadata());
    handler(call, { log });
  };
}
