import {
  credentials,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import { AccessServiceClient } from '@brand/proto/access/v1';
import { RecordsServiceClient } from '@brand/proto/records/v1';
import { AppError } from '@brand/shared/errors';
import { callUnary, CLIENT_CHANNEL_OPTIONS, INTERNAL_TOKEN_METADATA } from '@brand/shared/grpc';
import type { Settings } from './settings';

/** The full-form signature of a generated unary method (its last overload). */
type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (err: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

type RequestOf<F> = F extends UnaryMethod<infer Req, unknown> ? Req : never;
type ResponseOf<F> = F extends UnaryMethod<never, infer Res> ? Res : never;

/**
 * Calls one RPC of a generated client by name, e.g. `access('listBrands', {})`, with the
 * internal token and the configured deadline (or `deadlineMs` for a call known to be
 * slow). Rejects with an AppError, as callUnary does.
 */
export type Caller<C> = <M extends Exclude<keyof C, keyof Client>>(
  method: M,
  request: RequestOf<C[M]>,
  deadlineMs?: number,
) => Promise<ResponseOf<C[M]>>;

/** The records service as brandctl sees it. */
export interface Backend {
  /** Where the clients connect, for messages ("cannot reach ... at <addr>"). */
  address: string;
  access: Caller<AccessServiceClient>;
  records: Caller<RecordsServiceClient>;
  /** Closes both channels so the process can exit. */
  close(): void;
}

/**
 * Creates the clients. Fails with AppError('unauthenticated') when no internal token was
 * found: every command drives admin RPCs, so there is no point connecting without one.
 * Channels connect lazily, on the first call.
 */
export function createBackend(settings: Settings): Backend {
  const token = settings.token;
  if (token === undefined) {
    throw new AppError(
      'unauthenticated',
      'no internal token: pass --token or set INTERNAL_TOKEN (the local stack keeps it in config/local.env).',
    );
  }
  const insecure = credentials.createInsecure();
  const access = new AccessServiceClient(settings.recordsAddr, insecure, CLIENT_CHANNEL_OPTIONS);
  const records = new RecordsServiceClient(settings.recordsAddr, insecure, CLIENT_CHANNEL_OPTIONS);

  const caller =
    <C extends Client>(client: C): Caller<C> =>
    (method, request, deadlineMs = settings.timeoutMs) => {
      const fn = client[method] as unknown as UnaryMethod<typeof request, never>;
      return callUnary((md, options, cb) => fn.call(client, request, md, options, cb), {
        deadlineMs,
        metadata: { [INTERNAL_TOKEN_METADATA]: token },
      });
    };

  return {
    address: settings.recordsAddr,
    access: caller(access),
    records: caller(records),
    close: () => {
      access.close();
      records.close();
    },
  };
}
