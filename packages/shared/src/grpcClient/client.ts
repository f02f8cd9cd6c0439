import {
  credentials,
  Metadata,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromServiceError } from '../errors';
import { INTERNAL_TOKEN_METADATA, REQUEST_ID_METADATA } from './metadata';

/**
 * Channel options for every client: keepalive, fast reconnects after a peer restart,
 * round-robin over every address a name resolves to, so a `dns:///records-headless:50051`
 * target (a headless Kubernetes Service) spreads calls over all pods instead of one, and a
 * receive window of 4 MiB instead of HTTP/2's 64 KiB.
 *
 * Why the window: it bounds what the peer may send before this side acknowledges it, per
 * stream and per connection. At 64 KiB a connection holds about three of the walk's 17 KB
 * pages, so with dozens of pages in flight on the page streams records stalled on every
 * WINDOW_UPDATE, and each update cost a write on this side and a wake-up and write on the
 * other. Measured by scripts/bench/pageHop.mjs on one 2-core machine, 50 pages in flight on
 * two streams: 57 + 53 µs of CPU per page (client + server) at 64 KiB, 36 + 32 µs at 4 MiB,
 * and twice the pages a second (BENCHMARKS.md, "Today: the walk with the hop's flow control
 * fixed"). Memory stays bounded: at most the window per connection is buffered unread, and
 * this side reads as data arrives.
 */
export const CLIENT_CHANNEL_OPTIONS = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2_000,
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
  'grpc-node.flow_control_window': 4 * 1024 * 1024,
} as const;

/** The full-form signature of a generated unary method (its last overload). */
type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (err: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

export type RequestOf<F> = F extends UnaryMethod<infer Req, unknown> ? Req : never;
export type ResponseOf<F> = F extends UnaryMethod<never, infer Res> ? Res : never;
export type MethodOf<C> = Exclude<keyof C, keyof Client>;

export interface CallOverrides {
  /** Replaces the caller's default deadline, e.g. for a call known to be slow. */
  deadlineMs?: number;
  requestId?: string;
  /** More metadata for this call, e.g. the member assertion of a console call. */
  metadata?: Readonly<Record<string, string>>;
}

/**
 * Calls one RPC of a generated client by name, e.g. `records('listRecordsPage', req, { requestId })`.
 * Every call carries the credential and a deadline. Rejects with an AppError: the service's
 * own code when it sent one, service_unavailable when the peer cannot be reached or the
 * deadline passed, internal_error otherwise.
 */
export type Caller<C> = <M extends MethodOf<C>>(
  method: M,
  request: RequestOf<C[M]>,
  overrides?: CallOverrides,
) => Promise<ResponseOf<C[M]>>;

export interface CallerSettings {
  /** Every call has a deadline; no default, so each caller decides consciously. */
  deadlineMs: number;
  /** Sent as the caller's credential on every call (internal, admin or console token). */
  token: string;
  /** More metadata for every call, e.g. the console's member assertion for one request. */
  metadata?: Readonly<Record<string, string>>;
}

/** The one way this system calls gRPC: a typed caller over a generated client. */
export function createCaller<C extends Client>(client: C, settings: CallerSettings): Caller<C> {
  return (method, request, overrides = {}) => {
    const metadata = new Metadata();
    metadata.set(INTERNAL_TOKEN_METADATA, settings.token);
    if (overrides.requestId) metadata.set(REQUEST_ID_METADATA, overrides.requestId);
    const extra = { ...settings.metadata, ...overrides.metadata };
    for (const [key, value] of Object.entries(extra)) metadata.set(key, value);
    const deadline = new Date(Date.now() + (overrides.deadlineMs ?? settings.deadlineMs));
    const fn = client[method] as unknown as UnaryMethod<
      typeof request,
      ResponseOf<C[typeof method]>
    >;
    return new Promise((resolve, reject) => {
      fn.call(client, request, metadata, { deadline }, (err, res) =>
        err ? reject(fromServiceError(err)) : resolve(res),
      );
    });
  };
}

type ClientConstructor<C> = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options: Record<string, unknown>,
) => C;

/**
 * A generated client for `address` with the standard channel options. Pass `shareWith` to
 * reuse another client's channel (several services in one process, one connection).
 * Plaintext: internal traffic stays inside the cluster network, authenticated per call by
 * token (docs/internals.md "Internal credentials"; a mesh may add mTLS underneath).
 */
export function connectClient<C>(
  Ctor: ClientConstructor<C>,
  address: string,
  shareWith?: Client,
): C {
  const options: Record<string, unknown> = { ...CLIENT_CHANNEL_OPTIONS };
  if (shareWith) options.channelOverride = shareWith.getChannel();
  return new Ctor(address, credentials.createInsecure(), options);
}
