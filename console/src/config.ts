import { z } from 'zod';
import {
  boolEnv,
  logLevelEnv,
  loadConfig,
  msEnv,
  portEnv,
  refusePublishedSecrets,
} from '@brand/shared/config';
import { checkRedisTls, redisTlsEnv } from '@brand/shared/redis';

const ConsoleEnv = z
  .object({
    NODE_ENV: z.string().default('development'),
    // HTTP
    /** Loopback unless a deployment opens it (the Helm chart and docker-compose set 0.0.0.0). */
    HTTP_HOST: z.string().default('127.0.0.1'),
    HTTP_PORT: portEnv.default(8090),
    /**
     * The address people type, e.g. https://console.example.com (no path). Sign-in links are
     * built on it and every state-changing request must come from its origin (CSRF).
     */
    CONSOLE_PUBLIC_URL: z.url().transform((u) => new URL(u)),
    /** Express "trust proxy" (the ingress ending TLS): false, true, a hop count or addresses. */
    TRUST_PROXY: z.string().default('false'),
    /** The internal operations listener: /metrics, /livez, /readyz. Never the public port. */
    METRICS_HOST: z.string().default('127.0.0.1'),
    METRICS_PORT: portEnv.default(9468),
    /** The gateway's public origin, shown in the examples on the keys and receivers pages. */
    GATEWAY_PUBLIC_URL: z.url().default('http://127.0.0.1:8080'),
    // gRPC: the console acts for the signed-in member on each of these
    RECORDS_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
    PLANS_GRPC_ADDR: z.string().default('127.0.0.1:50052'),
    WEBHOOKS_GRPC_ADDR: z.string().default('127.0.0.1:50053'),
    /** The console's own caller credential (docs/internals.md "Internal credentials"). */
    CONSOLE_TOKEN: z.string().min(32),
    GRPC_DEADLINE_MS: msEnv.default(5_000),
    // Mail
    /** Where sign-in links are sent from: smtp://host:port or smtps://user:pass@host:465. */
    SMTP_URL: z.url(),
    /**
     * With NODE_ENV=production, smtp:// to a host but loopback must be upgraded with STARTTLS
     * (mailSender.ts startTlsRequired); true allows plain SMTP, for a local sink on a private
     * network (docker-compose.yml's mailbox) and nothing else.
     */
    SMTP_ALLOW_PLAINTEXT: boolEnv.default(false),
    MAIL_FROM: z.string().min(3).default('Brand Records <no-reply@localhost>'),
    /** How often the console asks records for sign-in mails to send (they wait at most this). */
    SIGN_IN_MAIL_POLL_MS: msEnv.default(1_000),
    /**
     * How often the console asks records for member mails (invitations, owners' notices of a
     * new identity provider or a missing domain proof) when none are waiting.
     */
    MEMBER_MAIL_POLL_MS: msEnv.default(2_000),
    // Receiver notices: the owners' mail when the webhooks service disables a receiver
    /** The pause between claims of notices when none are waiting. */
    RECEIVER_NOTICE_INTERVAL_MS: msEnv.default(15_000),
    /** How long a claim holds before another replica may take the notices (1 s .. 10 min). */
    RECEIVER_NOTICE_LEASE_MS: msEnv
      .default(60_000)
      .refine((ms) => ms >= 1_000 && ms <= 600_000, 'must be from 1000 to 600000'),
    // Redis: the one-time reveal of new keys and signing secrets
    REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
    ...redisTlsEnv,
    REDIS_KEY_PREFIX: z.string().default('brs:'),
    // SCIM
    /**
     * Refused SCIM tokens one client address may send per window before the rest are answered
     * 429 with Retry-After, records unasked (docs/console.md "Provisioning (SCIM)"). An identity
     * provider sends its one token; only a guesser or a token pasted wrong reaches 20 a minute.
     */
    SCIM_AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(20),
    SCIM_AUTH_FAILURE_WINDOW_MS: msEnv.max(3_600_000).default(60_000),
    // Process
    LOG_LEVEL: logLevelEnv.default('info'),
    /**
     * /readyz stays 200 while records is unavailable (its body still says so): every console
     * shares records, so a balancer that took them all out during a database failover would
     * answer every page and SCIM itself, without Retry-After, where the console answers its own
     * 503 with one. The gateway's setting of the same name; on by default here, since nothing
     * else sets it for the console. false: records' absence fails readiness again.
     */
    READY_WITHOUT_RECORDS: boolEnv.default(true),
    /**
     * After SIGTERM, keep serving while /readyz reports 503, so the ingress stops sending here
     * before the listener closes (as the gateway's; the chart sets 5000).
     */
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(0),
    /** Then how long in-flight requests may finish. */
    SHUTDOWN_GRACE_MS: msEnv.default(10_000),
  })
  .superRefine(checkRedisTls)
  .superRefine(refusePublishedSecrets(['CONSOLE_TOKEN']))
  .superRefine((env, ctx) => {
    const url = env.CONSOLE_PUBLIC_URL;
    if (url.pathname !== '/' || url.search || url.hash) {
      ctx.addIssue({
        code: 'custom',
        path: ['CONSOLE_PUBLIC_URL'],
        message: 'must be an origin only (scheme, host, port), without a path',
      });
    }
    // Over plain HTTP the session cookie would cross the network readable; only a browser on
    // the same machine may use it (browsers treat loopback as a secure context).
    if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) {
      ctx.addIssue({
        code: 'custom',
        path: ['CONSOLE_PUBLIC_URL'],
        message: 'must be https unless the host is localhost or a loopback address',
      });
    }
  });

export type ConsoleConfig = z.infer<typeof ConsoleEnv>;

/** Parses the environment; throws a ConfigError naming every bad variable. */
export const loadConsoleConfig = (env: NodeJS.ProcessEnv): ConsoleConfig =>
  loadConfig(ConsoleEnv, env);

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** TRUST_PROXY as express expects it. */
export function trustProxySetting(value: string): boolean | number | string[] {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((s) => s.trim());
}
