/** Metadata keys shared by every gRPC client and server of the system. */
export const REQUEST_ID_METADATA = 'x-request-id';
export const INTERNAL_TOKEN_METADATA = 'x-internal-token';
