import { z } from 'zod';
import {
  CALLER_TOKEN_NAMES,
  ASSERTION_PUBLIC_KEY_NAMES,
  assertionPublicKeyEnv,
  callerTokenEnv,
  databaseEnv,
  grpcServiceEnv,
  loadConfig,
  processEnv,
  refusePublishedSecrets,
  requireAssertionKeyWithConsoleToken,
} from '@brand/shared/config';
import { checkDatabaseTls } from '@brand/shared/db';
import { auditRelayEnv } from '@brand/shared/audit';

const PlansEnv = z
  .object({
    // Process: NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS
    ...processEnv,
    // gRPC and the internal operations listener
    ...grpcServiceEnv({ grpc: 50052, metrics: 9466 }),
    // Caller credentials: every RPC requires one (docs/internals.md "Internal credentials")
    ...callerTokenEnv,
    // The console: records' Ed25519 public key checks member assertions (docs/console.md)
    ...assertionPublicKeyEnv,
    // PostgreSQL (and the health probe of it)
    ...databaseEnv,
    // Campaign plans
    /** Pending plans a brand may hold (docs/contract.md#limits: 200); the next one is pending_plan_limit. */
    PENDING_PLAN_LIMIT: z.coerce.number().int().min(1).max(100_000).default(200),
    // The audit trail handed to the webhooks service (issue 63): WEBHOOKS_GRPC_ADDR, AUDIT_RELAY_POLL_MS
    ...auditRelayEnv,
  })
  .superRefine(checkDatabaseTls)
  .superRefine(requireAssertionKeyWithConsoleToken('CONSOLE_ASSERTION_PUBLIC_KEY'))
  .superRefine(refusePublishedSecrets([...CALLER_TOKEN_NAMES, ...ASSERTION_PUBLIC_KEY_NAMES]));

export type PlansConfig = z.infer<typeof PlansEnv>;

export const loadPlansConfig = (env: NodeJS.ProcessEnv): PlansConfig => loadConfig(PlansEnv, env);
