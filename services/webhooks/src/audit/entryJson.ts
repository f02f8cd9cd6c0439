import { z } from 'zod';
import type { AuditEntryIn } from '@brand/proto/webhooks/v1/audit';
import { parseOrThrow } from '@brand/shared/errors';
import { firstCharacters } from '@brand/shared/text';

/**
 * An audit entry as streams and the API carry it (issue 63; docs/api.md "Audit log"): one JSON
 * object, the same for every destination, rendered once when the entry is stored. Its position
 * is not in it: the trail numbers entries as it stores them, and withPosition puts the number
 * in front when the entry is read.
 */

const AT = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/, 'must be RFC 3339 UTC');
/** Text cut at `max`: a long value never stops the trail (the services cut theirs already). */
const text = (max: number) => z.string().transform((s) => firstCharacters(s, max));

/** An activity row as the outboxes' triggers copy it. */
const ActivityRow = z.object({
  created_at: AT,
  action: text(80),
  actor_member_id: text(80),
  actor_email: text(320),
  subject_id: text(80),
  summary: text(600),
  client_address: text(64),
  user_agent: text(512),
});

/** A request-log row with its key's display prefix (records' trigger). */
const RequestRow = z.object({
  created_at: AT,
  method: text(16),
  path: text(256),
  status: z.number().int().min(400).max(599),
  error_code: text(64),
  request_id: text(128),
  key_id: text(80),
  key_prefix: text(32),
  surface: z.enum(['rest', 'assistant']),
  client_address: text(64),
});

const Entry = z.object({
  id: z.string().regex(/^(act_[A-Za-z0-9]{1,64}|rql_[0-9]{1,19})$/, 'must be act_... or rql_<n>'),
  brand_id: z.string().regex(/^br_[A-Za-z0-9]{1,64}$/, 'must be a brand id (br_...)'),
  kind: z.enum(['activity', 'request']),
  source: z.enum(['records', 'webhooks', 'plans']),
  row_json: z.string().max(8_000),
});

/** An entry ready to store: its keys and its JSON (without its position). */
export interface RenderedEntry {
  id: string;
  brandId: string;
  kind: 'activity' | 'request';
  createdAt: string;
  json: string;
}

/** Reads one handed-over entry and renders it; validation_failed for one that is not one. */
export function renderEntry(input: AuditEntryIn): RenderedEntry {
  const e = parseOrThrow(Entry, input);
  let row: unknown;
  try {
    row = JSON.parse(e.row_json);
  } catch {
    row = undefined;
  }
  if (e.kind === 'activity') {
    const r = parseOrThrow(ActivityRow, row);
    return {
      id: e.id,
      brandId: e.brand_id,
      kind: e.kind,
      createdAt: r.created_at,
      json: JSON.stringify({
        id: e.id,
        kind: 'activity',
        brand_id: e.brand_id,
        created_at: r.created_at,
        action: r.action,
        actor: { member_id: r.actor_member_id, email: r.actor_email },
        subject_id: r.subject_id,
        summary: r.summary,
        client_address: r.client_address,
        user_agent: r.user_agent,
        source: e.source,
        test: false,
      }),
    };
  }
  const r = parseOrThrow(RequestRow, row);
  const code = r.error_code ? ` ${r.error_code}` : '';
  return {
    id: e.id,
    brandId: e.brand_id,
    kind: e.kind,
    createdAt: r.created_at,
    json: JSON.stringify({
      id: e.id,
      kind: 'request',
      brand_id: e.brand_id,
      created_at: r.created_at,
      action: r.status >= 500 ? 'request.failed' : 'request.refused',
      actor: { key_id: r.key_id, key_prefix: r.key_prefix },
      subject_id: r.key_id,
      summary: `${r.method} ${r.path} answered ${r.status}${code}`.slice(0, 400),
      client_address: r.client_address,
      user_agent: '',
      request: {
        method: r.method,
        path: r.path,
        status: r.status,
        error_code: r.error_code,
        request_id: r.request_id,
        surface: r.surface,
      },
      source: e.source,
      test: false,
    }),
  };
}

/** The entry as carried: its position first, then the rest of its JSON. */
export function withPosition(json: string, position: number | string): string {
  return `{"position":${position},${json.slice(1)}`;
}
