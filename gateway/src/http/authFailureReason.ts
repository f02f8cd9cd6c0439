// Why a key was refused, as the request scope records it (http/) and auth/ decides it: kept
// here, at the bottom floor, so http/ never imports from auth/ above it (issue 35).
/**
 * Why a request's key was refused, a bounded label of api_key_auth_failures_total:
 * - missing: no Authorization header, or nothing after `Bearer`;
 * - wrong_scheme: a header with another scheme (`Basic`, `bearer`, a bare key);
 * - malformed: a token not shaped like one of our keys;
 * - wrong_environment: a key of the other environment (test on live or the reverse);
 * - unknown_or_revoked: shaped right, but the records service knows no active key for it
 *   (unknown, revoked, or expired: a rolled key past its overlap counts here too);
 * - plan_tier: a valid key of a brand whose plan has no API access (Free);
 * - forbidden_permission: a valid key without the permission the call needs;
 * - network: a valid key presented from an address outside its allowed networks (issue 63);
 * - unavailable: the key could not be checked (the records service did not answer).
 */
export type AuthFailureReason =
  | 'missing'
  | 'wrong_scheme'
  | 'malformed'
  | 'wrong_environment'
  | 'unknown_or_revoked'
  | 'plan_tier'
  | 'forbidden_permission'
  | 'network'
  | 'unavailable';
