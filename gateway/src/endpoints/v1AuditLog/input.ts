import { z } from 'zod';
import { AppError, describeIssues, fieldIssues } from '@brand/shared/errors';
import { LIST_PARAM_MESSAGES, parseLimitString } from '@brand/shared/resources';
import { parseQueryString } from '../../http/queryString';

/** The route, and the request metric's label of every answer of this endpoint. */
export const AUDIT_LOG_ROUTE = '/api/v1/audit-log';

/** `/api/v1/audit-log`, as express would match it: any case, an optional trailing slash. */
const AUDIT_LOG_PATH = /^\/api\/v1\/audit-log\/?$/i;

/** Whether a request target is the audit log (its query aside). */
export function isAuditLogPath(url: string | undefined): boolean {
  const target = url ?? '';
  const end = target.search(/[?#]/);
  return AUDIT_LOG_PATH.test(end === -1 ? target : target.slice(0, end));
}

/** The permission a key needs (an owner grants it at creation, issue 63). */
export const AUDIT_READ = 'audit:read';

/** An audit-log cursor as the webhooks service issues it ("<base36>.<16 base64url>"). */
const CURSOR = /^[0-9a-z]{1,11}\.[A-Za-z0-9_-]{16}$/;
/** A position: a whole number below 2^53, without sign or leading zeros. */
const POSITION = /^(0|[1-9][0-9]{0,14})$/;

/** GET /api/v1/audit-log query parameters. Unknown parameters are refused, to catch typos. */
const AuditLogQuery = z.strictObject({
  limit: z
    .string()
    .refine((v) => parseLimitString(v) !== undefined, { message: LIST_PARAM_MESSAGES.limit })
    .optional(),
  cursor: z.string().regex(CURSOR, LIST_PARAM_MESSAGES.auditCursor).optional(),
  after: z.string().regex(POSITION, 'must be a position: a whole number, 0 or more.').optional(),
  kind: z.enum(['activity', 'request'], 'must be activity or request.').optional(),
});

/** The parameters of a valid request. */
export interface AuditLogParams {
  limit: number | undefined;
  cursor: string | undefined;
  /** Present: oldest first after this position (following). */
  after: number | undefined;
  kind: 'activity' | 'request' | undefined;
}

/**
 * The parameters of an audit-log request; 400 invalid_parameter with one detail per offending
 * parameter, invalid_cursor when only the cursor is wrong; cursor and after are two directions.
 */
export function readAuditLogQuery(rawQuery: string): AuditLogParams {
  const result = AuditLogQuery.safeParse(parseQueryString(rawQuery));
  if (!result.success) {
    const details = fieldIssues(result.error, {
      unknownKey: 'unknown parameter; the audit log takes limit, cursor, after and kind.',
    });
    const onlyCursor = details.every((d) => d.field === 'cursor');
    throw new AppError(
      onlyCursor ? 'invalid_cursor' : 'invalid_parameter',
      describeIssues(details, ' '),
      { details },
    );
  }
  const q = result.data;
  if (q.cursor !== undefined && q.after !== undefined) {
    const message =
      'cursor and after cannot be combined: cursor pages newest first, after reads on oldest first.';
    throw new AppError('invalid_parameter', message, { details: [{ field: 'after', message }] });
  }
  return {
    limit: q.limit === undefined ? undefined : parseLimitString(q.limit),
    cursor: q.cursor,
    after: q.after === undefined ? undefined : Number(q.after),
    kind: q.kind,
  };
}
