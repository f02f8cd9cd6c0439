/**
 * The gRPC metadata key carrying the member assertion on every call the console makes on a
 * member's behalf (records' keys and members RPCs, webhooks, plans).
 */
export const MEMBER_ASSERTION_METADATA = 'x-brand-member-assertion';
