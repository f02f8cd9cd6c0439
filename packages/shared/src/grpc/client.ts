import { Metadata, type CallOptions, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { fromServiceError } from '../errors';
import { REQUEST_ID_METADATA } from './metadata';

/** Channel options for every client: keepalive, and fast reconnects after a peer restart. */
export const CLIENT_CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2_000,
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
} as const;

/** Starts one unary call with the given metadata and options (a generated client method, bound). */
export type UnaryInvoker<Res> = (
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (err: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

export interface CallSettings {
  /** Every call has a deadline; no default so each caller decides consciously. */
  deadlineMs: number;
  requestId?: string;
  /** Extra metadata, e.g. the internal token for admin RPCs. */
  metadata?: Record<string, string>;
}

/**
 * Runs a unary call with a deadline and returns a promise, e.g.
 * `callUnary((md, opts, cb) => client.listRecords(req, md, opts, cb), { deadlineMs: 2000 })`.
 * Failures are AppErrors: the service's own code when it sent one, service_unavailable
 * when the peer cannot be reached or the deadline passed, internal_error otherwise.
 */
export function callUnary<Res>(invoke: UnaryInvoker<Res>, settings: CallSettings): Promise<Res> {
  const metadata = new Metadata();
  if (settings.requestId) metadata.set(REQUEST_ID_METADATA, settings.requestId);
  for (const [k, v] of Object.entries(settings.metadata ?? {})) metadata.set(k, v);
  const deadline = new Date(Date.now() + settings.deadlineMs);
  return new Promise((resolve, reject) => {
    invoke(metadata, { deadline }, (err, res) =>
      err ? reject(fromServiceError(err)) : resolve(res),
    );
  });
}
