import { Metadata } from '@grpc/grpc-js';
import {
  RecordsServiceClient,
  RecordsServiceService,
  type StreamRecordsPagesRequest,
  type StreamRecordsPagesResponse,
} from '@brand/proto/records/v1';
import { connectClient, INTERNAL_TOKEN_METADATA } from '@brand/shared/grpc';
import { serializeStreamRecordsPagesRequest } from './pageCallWire';

/** What the pool sees of one stream: messages out, and what happens to it. */
export interface StreamTransport {
  send(message: StreamRecordsPagesRequest): void;
  /** Half-closes: no more pages from us; the server ends the stream once it answered. */
  finish(): void;
  /** Drops the stream at once (the pool is closing). */
  cancel(): void;
}

export interface StreamEvents {
  /** The server accepted the stream (its headers arrived): the caller's credential passed. */
  opened(): void;
  message(message: StreamRecordsPagesResponse): void;
  /** The stream is over; `error` unless it ended with OK. Called once. */
  ended(error: Error | undefined): void;
}

/** Opens one stream to one address (the pool's only contact with gRPC). */
export type OpenStream = (address: string, events: StreamEvents) => StreamTransport;

/** StreamRecordsPages as the generated client defines it (its path, its answers' decoder). */
const STREAM = RecordsServiceService.streamRecordsPages;

/**
 * Streams over grpc-js: one channel per records address (its streams multiplexed on one
 * HTTP/2 connection), each stream opened with the internal credential in its metadata, with
 * no deadline (each page has its own, in its message). Channels are kept per address and
 * closed with `close()`.
 */
export function grpcStreams(token: string): { open: OpenStream; close(): void } {
  const clients = new Map<string, RecordsServiceClient>();
  const clientFor = (address: string): RecordsServiceClient => {
    let client = clients.get(address);
    if (!client) {
      client = connectClient(RecordsServiceClient, address);
      clients.set(address, client);
    }
    return client;
  };
  const open: OpenStream = (address, events) => {
    const metadata = new Metadata();
    metadata.set(INTERNAL_TOKEN_METADATA, token);
    // the generated client's method, with the page calls written by pageCallWire.ts
    const call = clientFor(address).makeBidiStreamRequest<
      StreamRecordsPagesRequest,
      StreamRecordsPagesResponse
    >(STREAM.path, serializeStreamRecordsPagesRequest, STREAM.responseDeserialize, metadata);
    let ended = false;
    const end = (error: Error | undefined): void => {
      if (ended) return;
      ended = true;
      events.ended(error);
    };
    call.on('metadata', () => events.opened());
    call.on('data', (message: StreamRecordsPagesResponse) => events.message(message));
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
