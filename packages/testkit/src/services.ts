import { generateKeyPairSync } from 'node:crypto';
import { GATEWAY_MAIN, PLANS_MAIN, RECORDS_MAIN, WEBHOOKS_MAIN } from './paths';
import { spawnService, type ServiceProcess } from './serviceProcess';
import { testRedisUrl } from './testEnv';
import { testKafkaBrokers } from './businessEvents';

/** The internal token of test stacks: services accept it, the gateway presents it. */
export const TEST_INTERNAL_TOKEN = 'test-internal-token-0123456789abcdef-0123';
/** The admin token of test stacks: brandctl and the admin client present it. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef-0123456';
/** The console token of test stacks: the console (and console tests) present it. */
export const TEST_CONSOLE_TOKEN = 'test-console-token-0123456789abcdef-01234';

/**
 * The member-assertion key pair of this test process, made fresh for it: records signs with
 * the private key, webhooks and plans verify with the public one (docs/console.md).
 */
export const TEST_ASSERTION_KEYS = (() => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
})();

/** The cursor-signing secret of test stacks. */
export const TEST_CURSOR_SECRET = 'test-cursor-secret-0123456789abcdef-0123456789';

export interface RecordsProcess extends ServiceProcess {
  /** gRPC address, "127.0.0.1:<port>". */
  address: string;
  /** The internal operations listener (/metrics), "http://127.0.0.1:<port>". */
  opsUrl: string;
}

export interface PlansProcess extends ServiceProcess {
  /** gRPC address, "127.0.0.1:<port>". */
  address: string;
  /** The internal operations listener (/metrics), "http://127.0.0.1:<port>". */
  opsUrl: string;
}

export interface GatewayProcess extends ServiceProcess {
  /** Origin, "http://127.0.0.1:<port>", no trailing slash. */
  url: string;
  /** The internal operations listener (/metrics, detailed /readyz), "http://127.0.0.1:<port>". */
  opsUrl: string;
}

const logLevel = (): string => process.env.TEST_LOG_LEVEL ?? 'info';

/**
 * What every gRPC service of a test gets: the default listen address (loopback, asserted by
 * console.loopback.test.ts) and OS-chosen ports (a test may name
 * GRPC_PORT in its env to restart a service where callers expect it), its database, the test
 * caller tokens, the test log level and a fast database probe.
 */
function grpcServiceEnv(databaseUrl: string): Record<string, string> {
  return {
    GRPC_PORT: '0',
    METRICS_PORT: '0',
    DATABASE_URL: databaseUrl,
    INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CONSOLE_TOKEN: TEST_CONSOLE_TOKEN,
    LOG_LEVEL: logLevel(),
    HEALTH_PROBE_INTERVAL_MS: '500',
  };
}

/** A started gRPC service with its address and its operations listener's URL. */
function withAddresses(proc: ServiceProcess): ServiceProcess & { address: string; opsUrl: string } {
  return Object.assign(proc, {
    address: `127.0.0.1:${proc.port}`,
    opsUrl: `http://127.0.0.1:${String(proc.listening.ops_port)}`,
  });
}

/** Starts the built records service on an OS-chosen port of 127.0.0.1. */
export async function startRecords(opts: {
  databaseUrl: string;
  redisUrl?: string;
  redisKeyPrefix: string;
  env?: Record<string, string>;
  /** Another build's entry point (an earlier release's, for the upgrade test); this tree's by default. */
  main?: string;
}): Promise<RecordsProcess> {
  const proc = await spawnService({
    name: 'records',
    entry: opts.main ?? RECORDS_MAIN,
    env: {
      ...grpcServiceEnv(opts.databaseUrl),
      REDIS_URL: opts.redisUrl ?? testRedisUrl(),
      REDIS_KEY_PREFIX: opts.redisKeyPrefix,
      CURSOR_SECRET: TEST_CURSOR_SECRET,
      CONSOLE_ASSERTION_PRIVATE_KEY: TEST_ASSERTION_KEYS.privateKeyPem,
      // Seals SSO client secrets, as webhooks seals receivers' (the same setting).
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
      // Tests sign one address in several times in a row; the spacing's own tests set theirs.
      SIGN_IN_MAIL_SPACING_MS: '1',
      SIGN_IN_MAIL_SPACING_MAX_MS: '1',
      ...opts.env,
    },
  });
  return withAddresses(proc);
}

/**
 * Starts the built plans service on 127.0.0.1, on an OS-chosen port unless `env.GRPC_PORT`
 * names one (a restart test brings it back where the gateway expects it).
 */
export async function startPlans(opts: {
  databaseUrl: string;
  env?: Record<string, string>;
  /** Another build's entry point, as startRecords. */
  main?: string;
}): Promise<PlansProcess> {
  const proc = await spawnService({
    name: 'plans',
    entry: opts.main ?? PLANS_MAIN,
    env: {
      ...grpcServiceEnv(opts.databaseUrl),
      CONSOLE_ASSERTION_PUBLIC_KEY: TEST_ASSERTION_KEYS.publicKeyPem,
      ...opts.env,
    },
  });
  return withAddresses(proc);
}

/** Starts the built gateway on an OS-chosen port of 127.0.0.1, serving the live environment. */
export async function startGateway(opts: {
  recordsAddr: string;
  /** The plans service, when the test has one (PLANS_GRPC_ADDR). */
  plansAddr?: string;
  /** The webhooks service, when the test has one (WEBHOOKS_GRPC_ADDR: the events feed). */
  webhooksAddr?: string;
  redisUrl?: string;
  redisKeyPrefix: string;
  env?: Record<string, string>;
  /** Another build's entry point, as startRecords. */
  main?: string;
}): Promise<GatewayProcess> {
  const proc = await spawnService({
    name: 'gateway',
    entry: opts.main ?? GATEWAY_MAIN,
    env: {
      HTTP_PORT: '0',
      METRICS_PORT: '0',
      SERVICE_ENVIRONMENT: 'live',
      RECORDS_GRPC_ADDR: opts.recordsAddr,
      ...(opts.plansAddr ? { PLANS_GRPC_ADDR: opts.plansAddr } : {}),
      ...(opts.webhooksAddr ? { WEBHOOKS_GRPC_ADDR: opts.webhooksAddr } : {}),
      INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
      REDIS_URL: opts.redisUrl ?? testRedisUrl(),
      REDIS_KEY_PREFIX: opts.redisKeyPrefix,
      LOG_LEVEL: logLevel(),
      ...opts.env,
    },
  });
  return Object.assign(proc, {
    url: `http://127.0.0.1:${proc.port}`,
    opsUrl: `http://127.0.0.1:${String(proc.listening.ops_port)}`,
  });
}

/** The webhooks secret-encryption key of test stacks (32 bytes, base64; published: tests only). */
export const TEST_WEBHOOK_SECRET_KEY = 'dGVzdC13ZWJob29rLXNlY3JldC1rZXktMDEyMzQ1Njc=';

export interface WebhooksProcess extends ServiceProcess {
  /** gRPC address, "127.0.0.1:<port>". */
  address: string;
  /** The internal operations listener (/metrics), "http://127.0.0.1:<port>". */
  opsUrl: string;
}

/**
 * Starts the built webhooks service (all roles unless env says otherwise) on an OS-chosen
 * port, consuming `topic` as consumer group `groupId`, with the retry schedule scaled by
 * 0.001 and short timeouts. `caFile` (a createTestCa() CA) turns on the test-only loopback
 * setting, so a local HTTPS receiver can be registered.
 */
export async function startWebhooks(opts: {
  databaseUrl: string;
  topic: string;
  groupId: string;
  caFile?: string;
  brokers?: string[];
  /** Where the consumer publishes the events feed's versions (the gateway's Redis and prefix). */
  redisUrl?: string;
  redisKeyPrefix?: string;
  env?: Record<string, string>;
  /** Another build's entry point, as startRecords. */
  main?: string;
}): Promise<WebhooksProcess> {
  const proc = await spawnService({
    name: 'webhooks',
    entry: opts.main ?? WEBHOOKS_MAIN,
    env: {
      ...grpcServiceEnv(opts.databaseUrl),
      KAFKA_BROKERS: (opts.brokers ?? testKafkaBrokers()).join(','),
      BUSINESS_EVENTS_TOPIC: opts.topic,
      KAFKA_CONSUMER_GROUP: opts.groupId,
      KAFKA_TOPIC_PARTITIONS: '3',
      REDIS_URL: opts.redisUrl ?? testRedisUrl(),
      ...(opts.redisKeyPrefix ? { REDIS_KEY_PREFIX: opts.redisKeyPrefix } : {}),
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
      CONSOLE_ASSERTION_PUBLIC_KEY: TEST_ASSERTION_KEYS.publicKeyPem,
      RETRY_TIME_SCALE: '0.001',
      DELIVERY_POLL_MS: '100',
      DELIVERY_CONNECT_TIMEOUT_MS: '2000',
      DELIVERY_TIMEOUT_MS: '3000',
      DELIVERY_LEASE_MS: '5000',
      ...(opts.caFile
        ? { WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true', WEBHOOK_EXTRA_CA_FILE: opts.caFile }
        : {}),
      ...opts.env,
    },
  });
  return withAddresses(proc);
}
