/** Metadata keys shared by every gRPC client and server of the system. */
export const REQUEST_ID_METADATA = 'x-request-id';
/** The caller's credential: the internal token, or the admin token for admin RPCs. */
export const INTERNAL_TOKEN_METADATA = 'x-internal-token';

/** Request ids that are safe to log and echo; anything else is replaced (see safeRequestId). */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The id if it is of a bounded, log-safe form, else undefined (the caller mints one). */
export function safeRequestId(value: unknown): string | undefined {
  return typeof value === 'string' && SAFE_REQUEST_ID.test(value) ? value : undefined;
}
