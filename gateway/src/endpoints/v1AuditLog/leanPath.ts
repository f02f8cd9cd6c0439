import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '@brand/shared/errors';
import type { AccessGate } from '../../auth/accessGate';
import type { AuditLogApi } from '../../clients/auditLogClient';
import { rawQueryOf, type RequestScope } from '../../http/requestScope';
import { admitApiKey } from '../../prelude/admission';
import type { LeanPath } from '../endpoint';
import { AUDIT_LOG_ROUTE, AUDIT_READ, isAuditLogPath, readAuditLogQuery } from './input';
import { answerAuditLogPage } from './page';

export interface AuditLogDeps {
  gate: AccessGate;
  audit: AuditLogApi;
}

const ALLOWED = ['GET', 'HEAD'];

/**
 * GET /api/v1/audit-log (docs/api.md "Audit log", issue 63), in the lists' order of checks: the
 * method (405 with Allow); the key and one unit of the brand's budget (admitApiKey: 401, 403,
 * 429: rate limited as every authenticated request); the audit:read permission (403
 * insufficient_permission); the query (400); then the page. Every failure is thrown to the one
 * error answer.
 */
export function auditLogPath(deps: AuditLogDeps): LeanPath {
  return (req, res, scope) => {
    if (!isAuditLogPath(req.url)) return undefined;
    scope.route = AUDIT_LOG_ROUTE;
    return answerAuditLog(deps, req, res, scope);
  };
}

async function answerAuditLog(
  deps: AuditLogDeps,
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
): Promise<void> {
  if (!ALLOWED.includes(req.method ?? '')) {
    res.setHeader('Allow', ALLOWED.join(', '));
    throw new AppError(
      'method_not_allowed',
      `${req.method} is not allowed here; use ${ALLOWED.join(' or ')}.`,
    );
  }
  const { identity } = await admitApiKey(deps.gate, req, res);
  deps.gate.requirePermission(identity, (who) => {
    if (!who.permissions.has(AUDIT_READ)) {
      throw new AppError(
        'insufficient_permission',
        `This key cannot read the audit log: it needs the ${AUDIT_READ} permission, which a brand owner grants when creating a key in the Developers area.`,
      );
    }
  });
  const params = readAuditLogQuery(rawQueryOf(req.url ?? ''));
  await answerAuditLogPage(deps.audit, res, { identity, params, requestId: scope.requestId });
}
