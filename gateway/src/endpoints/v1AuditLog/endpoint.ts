import type { Endpoint } from '../endpoint';
import { auditLogPath, type AuditLogDeps } from './leanPath';

export { describeV1AuditLog } from './openApi';

/**
 * GET /api/v1/audit-log (docs/api.md "Audit log", issue 63): its lean path (leanPath.ts)
 * through its input rules (input.ts) and answer (page.ts); its OpenAPI operation (openApi.ts).
 */
export function v1AuditLogEndpoint(deps: AuditLogDeps): Endpoint {
  return { lean: auditLogPath(deps) };
}
