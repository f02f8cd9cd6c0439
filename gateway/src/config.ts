import { z } from 'zod';
import {
  boolEnv,
  commaListEnv,
  loadConfig,
  logLevelEnv,
  msEnv,
  portEnv,
  refusePublishedSecrets,
  serviceEnvironmentEnv,
} from '@brand/shared/config';
import { checkRedisTls, redisTlsEnv } from '@brand/shared/redis';

const GatewayEnv = z
  .object({
    NODE_ENV: z.string().default('development'),
    // HTTP
    /** Loopback unless a deployment opens it (the Helm chart and docker-compose set 0.0.0.0). */
    HTTP_HOST: z.string().default('127.0.0.1'),
    HTTP_PORT: portEnv.default(8080),
    /**
     * Express "trust proxy": false (default; the client address is the socket peer), true,
     * a hop count, or a comma-separated list of proxy addresses/CIDRs (e.g. the ingress).
     * It decides whose address the unauthenticated per-address limit counts.
     */
    TRUST_PROXY: z.string().default('false'),
    /**
     * The internal operations listener: /metrics and readiness with its checks. Never the
     * public port; loopback by default (a pod sets 0.0.0.0 and a NetworkPolicy limits it).
     */
    METRICS_HOST: z.string().default('127.0.0.1'),
    METRICS_PORT: portEnv.default(9464),
    /** The public origin, shown in the OpenAPI servers list (e.g. https://api.example.com). */
    PUBLIC_BASE_URL: z.string().url().optional(),
    /**
     * A request's headers and body must arrive within this time (then 408 and the connection
     * closes), so slow or stalled uploads cannot hold connections.
     */
    BODY_TIMEOUT_MS: msEnv.default(10_000),
    // Service
    /** The key environment this deployment serves; keys of the other one are invalid_key. */
    SERVICE_ENVIRONMENT: serviceEnvironmentEnv.default('live'),
    // gRPC
    RECORDS_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
    /** The plans service (campaign-plan preparation); its outage does not fail /readyz. */
    PLANS_GRPC_ADDR: z.string().default('127.0.0.1:50052'),
    /** The webhooks service's gRPC (its admin role): the events feed, GET /api/v1/events. */
    WEBHOOKS_GRPC_ADDR: z.string().default('127.0.0.1:50053'),
    /** The credential this gateway presents on every gRPC call (docs/internals.md "Internal credentials"). */
    INTERNAL_TOKEN: z.string().min(32),
    /** Deadline of every call to a backing service (and of every page on a page stream). */
    GRPC_DEADLINE_MS: msEnv.default(3_000),
    // Page streams to records (docs/internals.md "The page hop")
    /** Long-lived page streams kept open to each records replica (address). */
    PAGE_STREAMS_PER_ADDRESS: z.coerce.number().int().min(1).max(16).default(2),
    /** Pages in flight on one stream; more wait in the queue below (back-pressure). */
    PAGE_STREAM_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1_000).default(64),
    /** Pages that may wait for room on a stream; past it a page is 503 at once. */
    PAGE_STREAM_MAX_QUEUED: z.coerce.number().int().min(0).max(100_000).default(1_000),
    /** A stream is replaced after this long (±20%), so new connections and replicas get traffic. */
    PAGE_STREAM_MAX_AGE_MS: msEnv.default(60_000),
    /** How often RECORDS_GRPC_ADDR is resolved again to find replicas added or gone. */
    RECORDS_RESOLVE_INTERVAL_MS: msEnv.default(5_000),
    /** Times a page is sent again on another stream after its stream broke (reads are idempotent). */
    PAGE_STREAM_MAX_FAILOVERS: z.coerce.number().int().min(0).max(5).default(2),
    // Redis (rate limits, revocation announcements)
    REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
    ...redisTlsEnv,
    REDIS_KEY_PREFIX: z.string().default('brs:'),
    /** A rate-limit call slower than this falls back to the in-memory limiter. */
    REDIS_COMMAND_TIMEOUT_MS: msEnv.default(500),
    // Authentication
    /** How long a verified key is trusted without asking the records service again. */
    KEY_CACHE_TTL_MS: msEnv.default(15_000),
    KEY_CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(10_000),
    /**
     * How long a key that proved valid is exempt from the per-address lookup budget, so
     * guesses from a shared address cannot lock it out (it is still looked up: revocation holds).
     */
    KEY_PROVEN_TTL_MS: msEnv.default(24 * 3_600_000),
    // Rate limits
    /**
     * While Redis is unreachable each instance enforces limit / this value on its own;
     * set it to the gateway replica count to keep the brand-wide total near the tier's limit.
     */
    RATE_LIMIT_FALLBACK_INSTANCES: z.coerce.number().int().min(1).default(1),
    /**
     * Multiplies every tier's per-minute budget. Benchmarks and load tests only (the Redis
     * script still runs per request); 1 in production, where a warning is logged otherwise.
     */
    RATE_LIMIT_SCALE: z.coerce.number().int().min(1).default(1),
    /** Requests a minute from one client address without a valid key (bad keys, the OpenAPI file). */
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
    // Assistant endpoint
    /**
     * Browser origins allowed to call POST /api/mcp; requests with any other Origin are 403.
     * `loopback` admits http(s)://localhost, 127.0.0.1 and [::1] on any port (local stack only).
     */
    MCP_ALLOWED_ORIGINS: commaListEnv,
    /**
     * Body limit of /api/mcp: as the plans POST's (v1CampaignPlans/input.ts MAX_BODY_BYTES, with
     * the arithmetic): the largest valid plan with every character escaped (532,184 bytes) and
     * its tools/call envelope fit.
     */
    MCP_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1_024)
      .default(576 * 1024),
    // Usage counting (issue 26; docs/console.md "Usage")
    /** How often each gateway sends its usage counts and refused requests to records. */
    USAGE_FLUSH_INTERVAL_MS: msEnv.default(5_000),
    /**
     * Failed attempts of one flush before each further failure is logged as an error: the batch
     * itself is kept and sent again with the next flush (usage/usageFlusher.ts).
     */
    USAGE_FLUSH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
    /** Distinct usage buckets (brand, key, minute, surface, outcome) held between flushes. */
    USAGE_MAX_BUCKETS: z.coerce.number().int().min(1).max(10_000).default(10_000),
    /** Refused requests held between flushes for the request log. */
    USAGE_MAX_LOG_ENTRIES: z.coerce.number().int().min(1).max(5_000).default(1_000),
    /** Client addresses remembered with the brand they were admitted for (24 hours). */
    USAGE_MAX_ADDRESSES: z.coerce.number().int().min(1).default(5_000),
    // Process
    LOG_LEVEL: logLevelEnv.default('info'),
    /** Log one line per request (method, path, status, duration, brand). */
    ACCESS_LOG: boolEnv.default(true),
    /** After SIGTERM, keep serving while /readyz reports 503 so balancers stop routing here. */
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(0),
    /**
     * /readyz stays 200 while records is unavailable (its body still says so): every gateway
     * shares records, so a balancer that took them all out during a database failover would
     * answer clients itself, without Retry-After. The chart sets it (issue 60).
     */
    READY_WITHOUT_RECORDS: boolEnv.default(false),
    /** Then how long in-flight requests may finish. */
    SHUTDOWN_GRACE_MS: msEnv.default(10_000),
  })
  .superRefine(checkRedisTls)
  .superRefine(refusePublishedSecrets(['INTERNAL_TOKEN']));

export type GatewayConfig = z.infer<typeof GatewayEnv>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv): GatewayConfig =>
  loadConfig(GatewayEnv, env);

/** TRUST_PROXY as express expects it. */
export function trustProxySetting(value: string): boolean | number | string[] {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((s) => s.trim());
}
