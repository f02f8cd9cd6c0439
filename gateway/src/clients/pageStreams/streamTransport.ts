import { Metadata, type ChannelCredentials, type Client } from '@grpc/grpc-js';
import type { PageCallMessage, PageOutcome } from '@brand/shared/grpc';
import { connectClient, INTERNAL_TOKEN_METADATA } from '@brand/shared/grpc';

/** What the pool sees of one stream: messages out, and what happens to it. */
export interface StreamTransport<In> {
  send(message: In): void;
  /** Half-closes: no more pages from us; the server ends the stream once it answered. */
  finish(): void;
  /** Drops the stream at once (the pool is closing). */
  cancel(): void;
}

export interface StreamEvents<Out> {
  /** The server accepted the stream (its headers arrived): the caller's credential passed. */
  opened(): void;
  message(message: Out): void;
  /** The stream is over; `error` unless it ended with OK. Called once. */
  ended(error: Error | undefined): void;
}

/** Opens one stream to one address (the pool's only contact with gRPC). */
export type OpenStream<In, Out> = (
  address: string,
  events: StreamEvents<Out>,
) => StreamTransport<In>;

/**
 * How the pool writes and reads one page-stream RPC's messages (the mirror of the server's
 * PageStreamMessages, packages/shared/src/grpc/pageStreamServer.ts).
 */
export interface PageStreamEnvelope<In, Out, Req, Res> {
  call(call: PageCallMessage<Req>): In;
  cancel(callId: number): In;
  /**
   * An answer (its outcome undefined when the message held none), the server's drain
   * notice, or nothing the pool knows.
   */
  read(
    message: Out,
  ): { callId: number; outcome: PageOutcome<Res> | undefined } | { draining: true } | undefined;
}

/** One page-stream RPC as grpc-js calls it: its generated client, path and (de)serializers. */
export interface PageStreamRpc<In, Out> {
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
export function grpcStreams<In, Out>(
  rpc: PageStreamRpc<In, Out>,
  token: string,
): { open: OpenStream<In, Out>; close(): void } {
  const clients = new Map<string, Client>();
  const clientFor = (address: string): Client => {
    let client = clients.get(address);
    if (!client) {
      client = connectClient(rpc.Client, address);
      clients.set(address, client);
    }
    return client;
  };
  const open: OpenStream<In, Out> = (address, events) => {
    const metadata = new Metadata();
    metadata.set(INTERNAL_TOKEN_METADATA, token);
    const call = clientFor(address).makeBidiStreamRequest<In, Out>(
      rpc.path,
      rpc.serialize,
      rpc.deserialize,
      metadata,
    );
    let ended = false;
    const end = (error: Error | undefined): void => {
      if (ended) return;
      ended = true;
      events.ended(error);
    };
    call.on('metadata', () => events.opened());
    call.on('data', (message: Out) => events.message(message));
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
