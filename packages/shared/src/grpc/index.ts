export {
  INTERNAL_TOKEN_METADATA,
  REQUEST_ID_METADATA,
  safeRequestId,
} from '../grpcClient/metadata';
export {
  CallerAuth,
  MIN_TOKEN_LENGTH,
  type AccessLevel,
  type CallerClass,
  type CallerTokens,
} from './callerAuth';
export { classifyFailure } from './failure';
export {
  CLIENT_ADDRESS_METADATA,
  currentClientOrigin,
  originOfMetadata,
  setOriginMetadata,
  withClientOrigin,
  type ClientOrigin,
} from '../grpcClient/clientOrigin';
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
// the calling side, which @brand/shared/grpcClient is alone (for processes that serve none)
export * from '../grpcClient';
export { CLIENT_CHANNEL_OPTIONS } from '../grpcClient/client';
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
