// The calling side of the services' gRPC alone, for a process that serves none of it: brandctl
// starts once per command, and @brand/shared/grpc would also load the serving side
// (grpc-health-check's definitions parsed by protobufjs at load, OpenTelemetry, the page
// streams), about half of a command's start (docs/internals.md, "Tests").
export {
  connectClient,
  createCaller,
  type CallOverrides,
  type Caller,
  type CallerSettings,
  type MethodOf,
  type RequestOf,
  type ResponseOf,
} from '../grpc/client';
export { CLIENT_USER_AGENT_METADATA } from '../grpc/clientOrigin';
