// The audit trail's way out of each service (issue 63): its outbox and the relay that hands it
// to the webhooks service (docs/internals.md, "Where each shared concern lives").
export {
  startAuditRelay,
  type AuditPush,
  type AuditRelay,
  type AuditRelaySettings,
} from './auditRelay';
export { auditRelayEnv, webhooksAuditPush } from './auditIngestClient';
export { startServiceAuditRelay } from './serviceRelay';
