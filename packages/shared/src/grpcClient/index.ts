// The calling side of the services' gRPC: typed callers (client.ts), the caller's origin carried
// in metadata (clientOrigin.ts) and the metadata names both sides use (metadata.ts). The serving
// side (../grpc) builds on it. A process that serves none imports this alone: brandctl starts
// once per command, and @brand/shared/grpc would also load the serving side (grpc-health-check's
// definitions parsed by protobufjs at load, OpenTelemetry, the page streams), about a sixth of a
// command's CPU (docs/internals.md, "Tests").
export {
  CLIENT_CHANNEL_OPTIONS,
  connectClient,
  createCaller,
  type CallOverrides,
  type Caller,
  type CallerSettings,
  type MethodOf,
  type RequestOf,
  type ResponseOf,
} from './client';
export {
  CLIENT_ADDRESS_METADATA,
  CLIENT_USER_AGENT_METADATA,
  currentClientOrigin,
  originOfMetadata,
  setOriginMetadata,
  withClientOrigin,
  type ClientOrigin,
} from './clientOrigin';
export { INTERNAL_TOKEN_METADATA, REQUEST_ID_METADATA, safeRequestId } from './metadata';
