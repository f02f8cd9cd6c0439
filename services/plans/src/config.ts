import { z } from 'zod';
import {
  CALLER_TOKEN_NAMES,
  callerTokenEnv,
  databaseEnv,
  grpcServiceEnv,
  loadConfig,
  processEnv,
  refusePublishedSecrets,
} from '@brand/shared/config';

const PlansEnv = z
  .object({
    // Process: NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS
    ...processEnv,
    // gRPC and the internal operations listener
    ...grpcServiceEnv({ grpc: 50052, metrics: 9466 }),
    // Caller credentials: every RPC requires one (docs/internals.md "Internal credentials")
    ...callerTokenEnv,
    // PostgreSQL (and the health probe of it)
    ...databaseEnv,
    // Campaign plans
    /** Pending plans a brand may hold (SPEC 8: 200); the next one is pending_plan_limit. */
    PENDING_PLAN_LIMIT: z.coerce.number().int().min(1).max(100_000).default(200),
  })
  .superRefine(refusePublishedSecrets([...CALLER_TOKEN_NAMES]));

export type PlansConfig = z.infer<typeof PlansEnv>;

export const loadPlansConfig = (env: NodeJS.ProcessEnv): PlansConfig => loadConfig(PlansEnv, env);
