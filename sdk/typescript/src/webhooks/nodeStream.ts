import { concatBytes, rawBodyBytes } from './rawBody.js';
import { WebhookVerificationError } from './verificationError.js';

/** A Node readable stream (an IncomingMessage), typed by the events used. */
export interface NodeStream {
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  resume?(): unknown;
}

/**
 * Reads a Node request body with listeners rather than async iteration: leaving a `for await`
 * early destroys the request and with it the socket, so an oversized body could not be
 * answered with 413. Past `maxBytes` the rest is drained unread and body_too_large is thrown.
 * A request that closes before its end rejects with an Error.
 */
export function readNodeStream(stream: NodeStream, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.removeListener('close', onClose);
      outcome();
    };
    const onData = (chunk: unknown): void => {
      const bytes = rawBodyBytes(chunk);
      size += bytes.length;
      if (size <= maxBytes) {
        chunks.push(bytes);
        return;
      }
      settle(() =>
        reject(
          new WebhookVerificationError('body_too_large', `body is larger than ${maxBytes} bytes`),
        ),
      );
      // Keep the stream flowing into nothing, so the response can still be sent.
      stream.resume?.();
    };
    const onEnd = (): void => settle(() => resolve(concatBytes(chunks)));
    const onError = (error: unknown): void =>
      settle(() => reject(error instanceof Error ? error : new Error(String(error))));
    const onClose = (): void =>
      settle(() => reject(new Error('the request closed before its body ended')));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
