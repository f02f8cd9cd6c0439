// the calling side, which @brand/shared/grpcClient is alone (for processes that serve none)
export * from '../grpcClient';
export {
  CallerAuth,
  MIN_TOKEN_LENGTH,
  type AccessLevel,
  type CallerClass,
  type CallerTokens,
} from './callerAuth';
export { classifyFailure } from './failure';
export {
  rpcBuilder,
  unary,
  type CallContext,
  type RpcBuilder,
  type RpcDeps,
  type RpcHandler,
} from './unary';
export { type StreamContext, type StreamHandler } from './bidiStream';
export { createGrpcServer, createHealth, setAllHealth, bindServer, shutdownServer } from './server';
export { HealthClient, type ServingStatus } from './healthClient';
export { utf8Bytes } from './utf8Bytes';
export {
  PageStreams,
  type AnswerPage,
  type PageCallMessage,
  type PageFailureMessage,
  type PageOutcomeMessage,
  type PageSignal,
  type PageStreamNames,
  type PageStreamRequest,
  type PageStreamResponse,
  type PageStreamSettings,
} from './pageStreamServer';
