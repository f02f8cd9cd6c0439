import { createAdminClient, type AdminClient } from './adminClient';
import { freeRedisPrefixKeys, uniqueRedisPrefix } from './redisKeys';
import { setOwner, stopAllServices } from './serviceProcess';
import {
  startGateway,
  startPlans,
  startRecords,
  startWebhooks,
  type GatewayProcess,
  type PlansProcess,
  type RecordsProcess,
  type WebhooksProcess,
} from './services';
import { createTestDatabase, type TestDatabase } from './testDatabase';
import { testRedisUrl } from './testEnv';

/** A running system for one test file: its own database, Redis key prefix and processes. */
export interface Stack {
  db: TestDatabase;
  records: RecordsProcess;
  /** The plans service; undefined unless started with `plans: true`. */
  plans: PlansProcess | undefined;
  gateways: GatewayProcess[];
  /** The first gateway; undefined only with `gateways: 0`. */
  gateway: GatewayProcess;
  /** The webhooks service, when `webhooks` was given. */
  webhooks: WebhooksProcess | undefined;
  redisKeyPrefix: string;
  redisUrl: string;
  /** An admin client of the records process, with the test internal token. */
  admin: AdminClient;
  /**
   * Stops the gateways, then plans and records (SIGTERM, SIGKILL after 5 s), plus any process this
   * test file started outside a stack; closes the admin client, drops the database and
   * deletes the prefix's Redis keys. Safe to call twice.
   */
  close(): Promise<void>;
}

export interface StackOptions {
  /** How many gateways to start (default 1; 0 for records-only tests). */
  gateways?: number;
  recordsEnv?: Record<string, string>;
  /** Start the plans service too (after records, before the gateways, which get its address). */
  plans?: boolean;
  plansEnv?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
  redisUrl?: string;
  /**
   * Also start the webhooks service on the same database, consuming `topic` (use
   * uniqueTopic()) as `groupId` (uniqueConsumerGroup()); `caFile` admits local HTTPS
   * receivers signed by that CA (createTestCa()).
   */
  webhooks?: {
    topic: string;
    groupId: string;
    caFile?: string;
    /** The brokers it consumes from (a test's own broker); the shared test broker by default. */
    brokers?: string[];
    env?: Record<string, string>;
  };
}

/**
 * Starts records, optionally plans, and N gateways on a fresh database. If any step fails, whatever already
 * started is torn down before the error propagates.
 */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const redisUrl = opts.redisUrl ?? testRedisUrl();
  const redisKeyPrefix = uniqueRedisPrefix();
  const db = await createTestDatabase();
  const owner = {};
  const gateways: GatewayProcess[] = [];
  let records: RecordsProcess | undefined;
  let webhooks: WebhooksProcess | undefined;
  let plans: PlansProcess | undefined;
  let admin: AdminClient | undefined;
  let closed = false;

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await Promise.all(gateways.map((g) => g.stop('SIGTERM', 5_000)));
    await webhooks?.stop('SIGTERM', 5_000);
    await plans?.stop('SIGTERM', 5_000);
    await records?.stop('SIGTERM', 5_000);
    await stopAllServices({ onlyUnowned: true });
    admin?.close();
    await db.close();
    await freeRedisPrefixKeys(redisKeyPrefix, redisUrl).catch(() => undefined);
  };

  try {
    // first: records and plans hand it their audit trail, the gateways read the events feed
    // and the audit log from it (WEBHOOKS_GRPC_ADDR)
    if (opts.webhooks) {
      webhooks = await startWebhooks({
        databaseUrl: db.url,
        redisUrl,
        redisKeyPrefix,
        ...opts.webhooks,
      });
      setOwner(webhooks, owner);
    }
    const trail: Record<string, string> = webhooks ? { WEBHOOKS_GRPC_ADDR: webhooks.address } : {};
    records = await startRecords({
      databaseUrl: db.url,
      redisUrl,
      redisKeyPrefix,
      env: { ...trail, ...opts.recordsEnv },
    });
    setOwner(records, owner);
    admin = createAdminClient(records.address);
    if (opts.plans) {
      plans = await startPlans({ databaseUrl: db.url, env: { ...trail, ...opts.plansEnv } });
      setOwner(plans, owner);
    }
    const count = opts.gateways ?? 1;
    const started = await Promise.all(
      Array.from({ length: count }, () =>
        startGateway({
          recordsAddr: records!.address,
          plansAddr: plans?.address,
          webhooksAddr: webhooks?.address,
          redisUrl,
          redisKeyPrefix,
          env: opts.gatewayEnv,
        }),
      ),
    );
    for (const g of started) {
      setOwner(g, owner);
      gateways.push(g);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    db,
    records,
    plans,
    gateways,
    gateway: gateways[0]!,
    webhooks,
    redisKeyPrefix,
    redisUrl,
    admin,
    close,
  };
}
