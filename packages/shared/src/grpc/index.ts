export { REQUEST_ID_METADATA, INTERNAL_TOKEN_METADATA } from './metadata';
export { unary, type CallContext } from './unary';
export { internalTokenGuard } from './internalToken';
export { createGrpcServer, createHealth, setAllHealth, bindServer, shutdownServer } from './server';
export { callUnary, CLIENT_CHANNEL_OPTIONS, type CallSettings, type UnaryInvoker } from './client';
