import type { Attempt } from '@brand/proto/webhooks/v1';

/** Error classes of an attempt (Attempt.error_class) and of health (FailureCount.class), in words. */
const CLASS_WORDS: Record<string, string> = {
  http_status: 'an error status from the receiver',
  http_4xx: '4xx answers',
  http_5xx: '5xx answers',
  http_429: '429 Too Many Requests',
  redirect: 'redirects (never followed)',
  timeout: 'timed out (no answer within 30 s)',
  connect_timeout: 'could not connect within 5 s',
  connection_error: 'connection errors',
  tls_error: 'TLS errors (certificate or handshake)',
  blocked_address: 'refused: the address is not public',
  invalid_url: 'refused: the URL breaks the receiver rules',
  secret_unavailable: 'the signing secret could not be read',
  unexpected_continue: 'an unasked 100 Continue hid the answer',
};

/** A failure class in words; an unknown class is shown as it came. */
export function failureClassWords(errorClass: string): string {
  return CLASS_WORDS[errorClass] ?? errorClass.replaceAll('_', ' ');
}

/**
 * What came of one attempt, in words: the HTTP status of a success, the service's own
 * sentence for a failure ("connection refused by 203.0.113.7:443"), or, from a service that
 * sends none, the status or the error class.
 */
export function attemptOutcome(a: Attempt): string {
  if (!a.error_class) return a.status_code ? `HTTP ${a.status_code}` : 'delivered';
  if (a.error_message) return a.error_message;
  if (a.status_code) return `the receiver answered ${a.status_code}`;
  return failureClassWords(a.error_class);
}
