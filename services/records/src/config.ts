import { z } from 'zod';
import {
  CALLER_TOKEN_NAMES,
  assertionPrivateKeyEnv,
  boolEnv,
  callerTokenEnv,
  commaListEnv,
  databaseEnv,
  grpcServiceEnv,
  loadConfig,
  msEnv,
  processEnv,
  refusePublishedSecrets,
  requireAssertionKeyWithConsoleToken,
} from '@brand/shared/config';
import { checkDatabaseTls } from '@brand/shared/db';
import { checkRedisTls, redisTlsEnv } from '@brand/shared/redis';
import { BUSINESS_EVENTS_TOPIC, checkKafkaSecurity, kafkaSecurityEnv } from '@brand/shared/kafka';
import { secretKeyEnv } from '@brand/shared/secrets';
import { auditRelayEnv } from '@brand/shared/audit';

/** An https origin as operators write it ("https://oauth2.googleapis.com"), normalised. */
const httpsOrigin = z.string().transform((raw, ctx) => {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || url.origin !== raw.replace(/\/$/, '')) {
    ctx.addIssue({
      code: 'custom',
      message: `${raw} is not an https origin (https://host[:port])`,
    });
    return z.NEVER;
  }
  return url.origin;
});

/** A DNS server as node:dns's setServers takes it: "1.1.1.1", "1.1.1.1:53", "[2001:db8::1]:53". */
const dnsServer = z
  .string()
  .regex(
    /^(?:\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|\[[0-9a-fA-F:.]+\](?::\d{1,5})?|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*)$/,
    'must be an IP address, optionally with a port ("1.1.1.1:53", "[2001:db8::1]:53")',
  );

const RecordsEnv = z
  .object({
    // Process: NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS
    ...processEnv,
    // gRPC and the internal operations listener
    ...grpcServiceEnv({ grpc: 50051, metrics: 9465 }),
    // Caller credentials: every RPC requires one (docs/internals.md "Internal credentials")
    ...callerTokenEnv,
    // PostgreSQL (and the health probe of it)
    ...databaseEnv,
    // Redis (revocation announcements)
    REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
    ...redisTlsEnv,
    /** Prefix for every Redis key and channel; lets several stacks share one Redis. */
    REDIS_KEY_PREFIX: z.string().default('brs:'),
    // Change versions (ETag and 304 at the gateway; docs/api.md "Polling")
    /** How often versions changed recently are published again (a lost publish heals); 0: never. */
    CHANGE_VERSION_SWEEP_MS: z.coerce.number().int().min(0).default(1_000),
    /** How far back that sweep looks, in seconds. */
    CHANGE_VERSION_SWEEP_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
    // Page streams (StreamRecordsPages; docs/internals.md "The page hop")
    /** Pages one stream may have in flight; more are refused with service_unavailable at once. */
    PAGE_STREAM_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(256),
    /**
     * How often usage retention runs (minute rows past 24 h, hour rows and request-log entries
     * past 7 days, each brand's log beyond its newest 10,000): plain DELETEs in batches.
     */
    USAGE_SWEEP_INTERVAL_MS: msEnv.default(60_000),
    // Pagination
    /** HMAC key for next_cursor values; at least 32 characters. */
    CURSOR_SECRET: z.string().min(32),
    /** Comma-separated former secrets still accepted while clients finish their walks. */
    CURSOR_SECRETS_PREVIOUS: commaListEnv,
    // Kafka: the outbox relay publishes business events (docs/webhooks.md "Publishing business events")
    /** Comma-separated host:port list; unset, the relay is off and events wait in the outbox. */
    KAFKA_BROKERS: commaListEnv,
    // Kafka TLS and SASL (docs/operating.md "Kafka security")
    ...kafkaSecurityEnv,
    /** The topic events go to; tests set their own. */
    BUSINESS_EVENTS_TOPIC: z.string().min(1).max(249).default(BUSINESS_EVENTS_TOPIC),
    /** false keeps this replica from relaying even with KAFKA_BROKERS set. */
    // The audit trail handed to the webhooks service (issue 63): WEBHOOKS_GRPC_ADDR, AUDIT_RELAY_POLL_MS
    ...auditRelayEnv,
    OUTBOX_RELAY_ENABLED: boolEnv.default(true),
    /** Poll interval of the relay; a committed change wakes it at once through NOTIFY anyway. */
    OUTBOX_POLL_MS: msEnv.default(1_000),
    /** Rows claimed and sent to Kafka per batch. */
    OUTBOX_BATCH_SIZE: z.coerce.number().int().min(1).max(1_000).default(100),
    /**
     * Longest wait between publish attempts while Kafka is unreachable (doubling from 250 ms).
     * Short: a returning broker is found within this (issue 19), and an attempt is cheap.
     */
    OUTBOX_MAX_BACKOFF_MS: msEnv.default(2_000),
    /** How long a published event is kept in the outbox; whole days go after it (7 days). */
    OUTBOX_RETENTION_MS: msEnv.default(7 * 24 * 3600_000),
    /** How often the outbox's day partitions are kept: made ahead, dropped past the retention. */
    OUTBOX_PARTITION_INTERVAL_MS: msEnv.default(3600_000),
    // Single sign-on (docs/console.md "Single sign-on")
    /**
     * The AES-256-GCM key webhooks seals receivers' secrets with (32 bytes, base64): records
     * seals SSO client secrets with it. Unset, SSO cannot be connected or used.
     */
    WEBHOOK_SECRET_KEY: secretKeyEnv.optional(),
    /** Former keys (comma-separated), still opening secrets sealed before a rotation. */
    WEBHOOK_SECRET_KEYS_PREVIOUS: commaListEnv.pipe(z.array(secretKeyEnv)),
    /**
     * The webhooks service's test-only setting, given to records too: admit an identity
     * provider on 127.0.0.1, ::1 or localhost (over plain http too: the local stack's and the
     * tests' provider). Off by default; refused in production.
     */
    WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: boolEnv.default(false),
    /**
     * Origins (comma-separated, https) a provider's discovery document may name besides its
     * issuer's own, e.g. Google's token and key endpoints. Every one still passes the egress
     * policy (public addresses, pinned lookup); empty: endpoints stay on the issuer's origin.
     */
    SSO_EXTRA_ORIGINS: commaListEnv.pipe(z.array(httpsOrigin)),
    /**
     * DNS servers (comma-separated "ip" or "ip:port") records asks for the TXT records that
     * prove a brand's SSO domains; empty: the system's resolvers. The local stack points it at
     * its own DNS server (scripts/dev-dns).
     */
    SSO_DNS_SERVERS: commaListEnv.pipe(z.array(dnsServer)),
    /** Each of those lookups gives up after this long (two tries). */
    SSO_DNS_TIMEOUT_MS: msEnv.default(2_000),
    /**
     * Changing a brand's single sign-on while it is in use needs the owner's session opened by
     * it within this long (10 minutes).
     */
    SSO_CHANGE_PROOF_MS: msEnv.default(10 * 60_000),
    /**
     * Each live single sign-on session is checked again with its provider once this old since
     * its last check (refresh token, or userinfo): a person removed at the provider loses the
     * console within about this long (5 minutes; docs/console.md "Sessions that end when the
     * person leaves").
     */
    SSO_RECHECK_INTERVAL_MS: msEnv.default(5 * 60_000),
    /**
     * Verified single sign-on domains are looked up again once their last check is this old (a
     * day; docs/console.md "Single sign-on", issue 59).
     */
    SSO_DOMAIN_RECHECK_INTERVAL_MS: msEnv.default(24 * 60 * 60_000),
    /**
     * A verified domain whose DNS record is missing this long (and on three checks in a row) is
     * no longer verified; the owners are mailed when it first goes missing (72 hours).
     */
    SSO_DOMAIN_GRACE_MS: msEnv.default(72 * 60 * 60_000),
    // The console (docs/console.md "How the console acts for a member")
    /** Ed25519 private key (PKCS#8 PEM) signing member assertions; required with CONSOLE_TOKEN. */
    ...assertionPrivateKeyEnv,
    /** Sign-in links expire after this long (15 minutes). */
    SIGN_IN_LINK_TTL_MS: msEnv.default(15 * 60_000),
    /** Sign-in links one client (the console's client key) may request for one address per window. */
    SIGN_IN_LINKS_PER_ADDRESS_AND_CLIENT: z.coerce.number().int().min(1).max(1_000).default(5),
    /** Sign-in links one client may request per window, whatever the addresses. */
    SIGN_IN_LINKS_PER_CLIENT: z.coerce.number().int().min(1).max(100_000).default(20),
    SIGN_IN_LINK_WINDOW_MS: msEnv.default(15 * 60_000),
    /** One address is mailed at most one link per this long, however many clients ask. */
    SIGN_IN_MAIL_SPACING_MS: msEnv.default(60_000),
    /**
     * The spacing doubles with each of the address's links of the last hour that went unused,
     * up to this (15 minutes; at most an hour, never below the spacing): sustained requests
     * from ever new clients mail a member a few links an hour, each living its spacing.
     */
    SIGN_IN_MAIL_SPACING_MAX_MS: msEnv.max(3_600_000).default(15 * 60_000),
    /** A sign-in mail the console claimed but did not confirm is claimed again after this. */
    SIGN_IN_MAIL_LEASE_MS: msEnv.default(60_000),
    /**
     * SCIM requests one provider's token may make per window (3,000 a minute, 50 a second;
     * docs/console.md "Provisioning"): twice the 25 a second Microsoft asks a SCIM service to
     * take per tenant, so Entra ID's and Okta's imports at their own pace are never refused; a
     * client past it is answered 429 with Retry-After, which both honour by waiting.
     */
    SCIM_REQUESTS_PER_TOKEN: z.coerce.number().int().min(1).max(1_000_000).default(3_000),
    SCIM_REQUEST_WINDOW_MS: msEnv.max(3_600_000).default(60_000),
    /** A console session ends after this long without a request (sliding; 30 minutes). */
    CONSOLE_SESSION_IDLE_MS: msEnv.default(30 * 60_000),
    /** A console session ends this long after sign-in whatever happens (12 hours). */
    CONSOLE_SESSION_MAX_MS: msEnv.default(12 * 3600_000),
  })
  .superRefine(checkKafkaSecurity)
  .superRefine(checkDatabaseTls)
  .superRefine(checkRedisTls)
  .superRefine(requireAssertionKeyWithConsoleToken('CONSOLE_ASSERTION_PRIVATE_KEY'))
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_ALLOW_LOOPBACK_RECEIVERS'],
        message: 'is a test setting and must not be on in production',
      });
    }
    if (env.CONSOLE_SESSION_IDLE_MS > env.CONSOLE_SESSION_MAX_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['CONSOLE_SESSION_IDLE_MS'],
        message: 'must not exceed CONSOLE_SESSION_MAX_MS',
      });
    }
  })
  .superRefine(
    refusePublishedSecrets([
      ...CALLER_TOKEN_NAMES,
      'CONSOLE_ASSERTION_PRIVATE_KEY',
      'CURSOR_SECRET',
      'CURSOR_SECRETS_PREVIOUS',
      'WEBHOOK_SECRET_KEY',
      'WEBHOOK_SECRET_KEYS_PREVIOUS',
    ]),
  );

export type RecordsConfig = z.infer<typeof RecordsEnv>;

export const loadRecordsConfig = (env: NodeJS.ProcessEnv): RecordsConfig =>
  loadConfig(RecordsEnv, env);
