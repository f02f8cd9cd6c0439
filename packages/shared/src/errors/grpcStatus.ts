import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AppError, type FieldIssue } from './appError';
import { grpcStatusOf, isErrorCode } from './codes';

/** Trailing-metadata keys that carry our error vocabulary across gRPC. */
export const ERROR_CODE_METADATA = 'x-error-code';
export const ERROR_DETAILS_METADATA = 'x-error-details';
export const RETRY_AFTER_METADATA = 'x-retry-after';

/** The object a grpc-js handler passes to its callback to fail a call. */
export interface GrpcFailure {
  code: status;
  details: string;
  metadata: Metadata;
}

/** Renders an AppError as a gRPC failure that keeps the public code and field details. */
export function toGrpcFailure(err: AppError): GrpcFailure {
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_METADATA, err.code);
  if (err.details !== undefined) {
    metadata.set(ERROR_DETAILS_METADATA, asciiJson(err.details));
  }
  if (err.retryAfterSeconds !== undefined) {
    metadata.set(RETRY_AFTER_METADATA, String(err.retryAfterSeconds));
  }
  return { code: grpcStatusOf(err.code), details: err.message, metadata };
}

/**
 * JSON in printable ASCII: a metadata value may hold nothing else (grpc-js throws on the rest),
 * and a field issue may quote what was sent (an emoji, curly quotes). Every other character is
 * a `\uXXXX` escape, which JSON.parse reads back as it was; the message itself travels as the
 * status's details, which grpc-js percent-encodes.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const UNAVAILABLE_MESSAGE = 'A backing service is temporarily unavailable; retry shortly.';

/**
 * Turns a failed gRPC call back into an AppError. A code sent by our own service is
 * trusted with its message; anything else (a crashed or unreachable peer, a proxy)
 * becomes a generic error whose message reveals nothing about the peer.
 */
export function fromServiceError(err: ServiceError): AppError {
  const sent = err.metadata?.get(ERROR_CODE_METADATA)[0];
  if (isErrorCode(sent)) {
    return new AppError(sent, err.details, {
      cause: err,
      details: readDetails(err.metadata),
      retryAfterSeconds: readRetryAfter(err.metadata),
    });
  }
  switch (err.code) {
    case status.UNAVAILABLE:
    case status.DEADLINE_EXCEEDED:
    case status.CANCELLED:
      return new AppError('service_unavailable', UNAVAILABLE_MESSAGE, {
        cause: err,
        retryAfterSeconds: 1,
      });
    default:
      return new AppError('internal_error', 'An internal error occurred.', { cause: err });
  }
}

function readRetryAfter(metadata: Metadata | undefined): number | undefined {
  const raw = metadata?.get(RETRY_AFTER_METADATA)[0];
  return typeof raw === 'string' && /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : undefined;
}

function readDetails(metadata: Metadata | undefined): FieldIssue[] | undefined {
  const raw = metadata?.get(ERROR_DETAILS_METADATA)[0];
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? (parsed as FieldIssue[]) : undefined;
  } catch {
    return undefined;
  }
}
