// The audit trail's way out of each service (issue 63): its outbox and the relay that hands it
// to the webhooks service (docs/internals.md, "Where each shared concern lives").
export {
  auditRelayFailure,
  startAuditRelay,
  type AuditPush,
  type AuditRelayFailure,
  type AuditRelayObserver,
  type AuditRelay,
  type AuditRelaySettings,
} from './auditRelay';
export { auditRelayEnv, webhooksAuditPush } from './auditIngestClient';
export { startServiceAuditRelay } from './serviceRelay';
export { auditRelayMetrics } from './relayMetrics';
