import {
  startGateway,
  startPlans,
  startRecords,
  startWebhooks,
  type ServiceProcess,
} from '@brand/testkit';

/**
 * Two replicas of every process, as a Kubernetes Deployment runs them, each able to be
 * restarted at the address its peers know it by (the OS picks the port the first time;
 * a restart takes the same one back). Callers reach a pair of replicas through one
 * `ipv4:` target, which grpc-js round-robins over, as it does over a headless Service.
 */
export interface Replica {
  /** "records-0", "gateway-1", ... */
  name: string;
  process: ServiceProcess;
  /** Every process this replica has been so far (a restart adds one); logs live here. */
  generations: ServiceProcess[];
  /** Starts the replica again on the same port (after it stopped). */
  restart(): Promise<void>;
}

export interface FleetOptions {
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  /** Kafka topic and consumer group of the business events. */
  topic: string;
  groupId: string;
  brokers: string;
  /** The test CA's file, so loopback HTTPS receivers are admitted. */
  caFile: string;
  /** Extra environment of every process (e.g. LOG_LEVEL). */
  env?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
}

export interface Fleet {
  records: Replica[];
  plans: Replica[];
  webhooks: Replica[];
  gateways: Replica[];
  /** The `ipv4:` target of both records replicas (admin calls use it too). */
  recordsTarget: string;
  plansTarget: string;
  webhooksTarget: string;
  /** Every process ever started, in start order. */
  all(): ServiceProcess[];
  stop(): Promise<void>;
}

const targetOf = (replicas: Replica[]): string =>
  `ipv4:${replicas.map((r) => `127.0.0.1:${r.process.port}`).join(',')}`;

async function replica(
  name: string,
  start: (port: number) => Promise<ServiceProcess>,
): Promise<Replica> {
  const first = await start(0);
  const r: Replica = {
    name,
    process: first,
    generations: [first],
    async restart() {
      const next = await start(first.port);
      r.process = next;
      r.generations.push(next);
    },
  };
  return r;
}

/** Starts 2 records, 2 plans, 2 webhooks and 2 gateways on one database and topic. */
export async function startFleet(opts: FleetOptions): Promise<Fleet> {
  const env = opts.env ?? {};
  const started: Replica[] = [];
  const pair = async (
    kind: string,
    start: (port: number) => Promise<ServiceProcess>,
  ): Promise<Replica[]> => {
    const replicas = await Promise.all([0, 1].map((i) => replica(`${kind}-${i}`, start)));
    started.push(...replicas);
    return replicas;
  };
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((r) => r.process.stop('SIGTERM', 10_000)));
  };
  try {
    const records = await pair('records', (port) =>
      startRecords({
        databaseUrl: opts.databaseUrl,
        redisUrl: opts.redisUrl,
        redisKeyPrefix: opts.redisKeyPrefix,
        env: {
          ...env,
          GRPC_PORT: String(port),
          KAFKA_BROKERS: opts.brokers,
          BUSINESS_EVENTS_TOPIC: opts.topic,
        },
      }),
    );
    const plans = await pair('plans', (port) =>
      startPlans({ databaseUrl: opts.databaseUrl, env: { ...env, GRPC_PORT: String(port) } }),
    );
    const webhooks = await pair('webhooks', (port) =>
      startWebhooks({
        databaseUrl: opts.databaseUrl,
        topic: opts.topic,
        groupId: opts.groupId,
        caFile: opts.caFile,
        env: { ...env, GRPC_PORT: String(port) },
      }),
    );
    const recordsTarget = targetOf(records);
    const plansTarget = targetOf(plans);
    const gateways = await pair('gateway', (port) =>
      startGateway({
        recordsAddr: recordsTarget,
        plansAddr: plansTarget,
        redisUrl: opts.redisUrl,
        redisKeyPrefix: opts.redisKeyPrefix,
        env: { ...env, ...opts.gatewayEnv, HTTP_PORT: String(port) },
      }),
    );
    return {
      records,
      plans,
      webhooks,
      gateways,
      recordsTarget,
      plansTarget,
      webhooksTarget: targetOf(webhooks),
      all: () => started.flatMap((r) => r.generations),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
