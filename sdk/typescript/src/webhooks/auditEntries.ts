import type { AuditEntry } from '../auditLog/auditLogResource.js';
import { WebhookVerificationError } from './verificationError.js';

export type { AuditEntry };

const decoder = new TextDecoder('utf-8', { fatal: true });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isNonEmptyString = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/**
 * The fields a receiver keys on: `id` (to deduplicate), `position` (0 for a Test entry, else 1,
 * 2, 3...), `kind`, `brand_id`, `created_at`, `action` and `test`. The rest is kept as sent, and
 * unknown fields too: the service may add fields. Values are not narrowed further (a `kind` or
 * `source` added later is no malformed line): a refused run is sent again until it is taken, and
 * every later entry waits behind it.
 */
function isAuditEntry(value: unknown): value is AuditEntry {
  return (
    isRecord(value) &&
    Number.isSafeInteger(value.position) &&
    (value.position as number) >= 0 &&
    isNonEmptyString(value.id) &&
    isNonEmptyString(value.kind) &&
    isNonEmptyString(value.brand_id) &&
    isNonEmptyString(value.created_at) &&
    isNonEmptyString(value.action) &&
    typeof value.test === 'boolean'
  );
}

function malformed(message: string): WebhookVerificationError {
  return new WebhookVerificationError('malformed_body', message);
}

/**
 * The entries of an audit stream run's body that passed signature verification: UTF-8 JSON
 * lines (`application/x-ndjson`), one entry a line, each line ended by `\n`; an empty body is a
 * run of none. Anything else is WebhookVerificationError('malformed_body') naming the first bad
 * line (its number, never its content: entries may hold addresses and emails).
 */
export function parseAuditEntries(body: Uint8Array): AuditEntry[] {
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    throw malformed('body is not UTF-8');
  }
  if (text === '') return [];
  if (!text.endsWith('\n')) throw malformed('body does not end with a newline (JSON lines)');
  const lines = text.slice(0, -1).split('\n');
  return lines.map((line, i) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw malformed(`line ${i + 1} is not JSON`);
    }
    if (!isAuditEntry(parsed)) throw malformed(`line ${i + 1} is not an audit entry`);
    return parsed;
  });
}
