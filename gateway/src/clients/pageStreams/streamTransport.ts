import { Metadata, type ChannelCredentials, type Client } from '@grpc/grpc-js';
import {
  connectClient,
  INTERNAL_TOKEN_METADATA,
  type PageStreamRequest,
  type PageStreamResponse,
} from '@brand/shared/grpc';

/** What the pool sees of one stream: messages out, and what happens to it. */
export interface StreamTransport<Req> {
  send(message: PageStreamRequest<Req>): void;
  /** Half-closes: no more pages from us; the server ends the stream once it answered. */
  finish(): void;
  /** Drops the stream at once (the pool is closing). */
  cancel(): void;
}

export interface StreamEvents<Res> {
  /** The server accepted the stream (its headers arrived): the caller's credential passed. */
  opened(): void;
  message(message: PageStreamResponse<Res>): void;
  /** The stream is over; `error` unless it ended with OK. Called once. */
  ended(error: Error | undefined): void;
}

/** Opens one stream to one address (the pool's only contact with gRPC). */
export type OpenStream<In, Out> = (
  address: string,
  events: StreamEvents<Out>,
) => StreamTransport<In>;

/**
 * One page-stream RPC as grpc-js calls it: its generated client, path and (de)serializers,
 * typed with its generated messages, which are PageStreamRequest and PageStreamResponse.
 */
export interface PageStreamRpc<In extends PageStreamRequest<unknown>, Out> {
  Client: new (
    address: string,
    credentials: ChannelCredentials,
    options: Record<string, unknown>,
  ) => Client;
  path: string;
  serialize: (message: In) => Buffer;
  deserialize: (bytes: Buffer) => Out;
}

/**
 * Streams over grpc-js: one channel per address (its streams multiplexed on one HTTP/2
 * connection), each stream opened with the internal credential in its metadata, with no
 * deadline (each page has its own, in its message). Channels are kept per address and closed
 * with `close()`.
 */
export function grpcStreams<Req, Res>(
  rpc: PageStreamRpc<PageStreamRequest<Req>, PageStreamResponse<Res>>,
  token: string,
): { open: OpenStream<Req, Res>; close(): void } {
  const clients = new Map<string, Client>();
  const clientFor = (address: string): Client => {
    let client = clients.get(address);
    if (!client) {
      client = connectClient(rpc.Client, address);
      clients.set(address, client);
    }
    return client;
  };
  const open: OpenStream<Req, Res> = (address, events) => {
    const metadata = new Metadata();
    metadata.set(INTERNAL_TOKEN_METADATA, token);
    const call = clientFor(address).makeBidiStreamRequest<
      PageStreamRequest<Req>,
      PageStreamResponse<Res>
    >(rpc.path, rpc.serialize, rpc.deserialize, metadata);
    let ended = false;
    const end = (error: Error | undefined): void => {
      if (ended) return;
      ended = true;
      events.ended(error);
    };
    call.on('metadata', () => events.opened());
    call.on('data', (message: PageStreamResponse<Res>) => events.message(message));
    call.on('error', (err: Error) => end(err));
    call.on('status', (status: { code: number; details: string }) =>
      end(status.code === 0 ? undefined : new Error(`stream ended: ${status.details}`)),
    );
    return {
      send: (message) => {
        if (!ended) call.write(message);
      },
      finish: () => {
        if (!ended) call.end();
      },
      cancel: () => call.cancel(),
    };
  };
  return {
    open,
    close: () => {
      for (const client of clients.values()) client.close();
      clients.clear();
    },
  };
}
