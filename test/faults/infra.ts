// The PostgreSQL, Redis and Kafka under the fault suite's world, never the machine's shared
// ones. Single servers for the crash and restart faults; replicated ones for the failovers
// (issue 60): a PostgreSQL primary and synchronous standby and a Redis primary and replica, each
// behind a TCP proxy that stands for the managed endpoint's DNS name, and three Kafka brokers
// with replication 3 and min.insync.replicas 2.
import { Redis } from 'ioredis';
import {
  startOwnKafka,
  startOwnKafkaCluster,
  startOwnRedis,
  tcpProxy,
  type OwnKafka,
  type OwnKafkaCluster,
  type OwnRedis,
  type TcpProxy,
} from '@brand/testkit';
import { startOwnPostgres, type OwnPostgres } from './ownPostgres';
import { startPostgresPair, type PostgresPair } from './postgresPair';

/** What the world's processes connect to. */
export interface Infra {
  /** A URL of `database` (user postgres, trust auth on loopback). */
  postgresUrl(database: string): string;
  redisUrl: string;
  brokers: string[];
  remove(): Promise<void>;
}

export interface SingleInfra extends Infra {
  pg: OwnPostgres;
  redis: OwnRedis;
  kafka: OwnKafka;
}

export interface ReplicatedInfra extends Infra {
  postgres: PostgresPair;
  /** The managed endpoint's DNS name: the processes' DATABASE_URL points here. */
  postgresEndpoint: TcpProxy;
  redisPrimary: OwnRedis;
  redisReplica: OwnRedis;
  redisEndpoint: TcpProxy;
  kafka: OwnKafkaCluster;
}

export async function startSingleInfra(): Promise<SingleInfra> {
  const removers: Array<() => Promise<void>> = [];
  try {
    const pg = await startOwnPostgres();
    removers.push(() => pg.remove());
    const redis = await startOwnRedis();
    removers.push(() => redis.kill());
    const kafka = await startOwnKafka();
    removers.push(() => kafka.remove());
    return {
      pg,
      redis,
      kafka,
      postgresUrl: (database) => pg.url(database),
      redisUrl: redis.url,
      brokers: kafka.brokers,
      remove: () => removeAll(removers),
    };
  } catch (err) {
    await removeAll(removers);
    throw err;
  }
}

/** `kafkaBrokers`: 3 for the broker-loss failover, 1 when no selected failover needs more. */
export async function startReplicatedInfra(opts: {
  kafkaBrokers: 1 | 3;
}): Promise<ReplicatedInfra> {
  const removers: Array<() => Promise<void>> = [];
  try {
    // the cluster first: its three JVMs start on the cores before anything else competes
    const kafka = await startOwnKafkaCluster({ size: opts.kafkaBrokers });
    removers.push(() => kafka.remove());
    const postgres = await startPostgresPair();
    removers.push(() => postgres.remove());
    const postgresEndpoint = await tcpProxy({ host: '127.0.0.1', port: postgres.primary().port });
    removers.push(() => postgresEndpoint.close());
    const redisPrimary = await startOwnRedis();
    removers.push(() => redisPrimary.kill());
    const redisReplica = await startOwnRedis({ replicaOf: redisPrimary.port });
    removers.push(() => redisReplica.kill());
    const redisEndpoint = await tcpProxy({ host: '127.0.0.1', port: redisPrimary.port });
    removers.push(() => redisEndpoint.close());
    return {
      postgres,
      postgresEndpoint,
      redisPrimary,
      redisReplica,
      redisEndpoint,
      kafka,
      postgresUrl: (database) => postgresEndpoint.url('postgres', database),
      redisUrl: redisEndpoint.url('redis'),
      brokers: kafka.brokers,
      remove: () => removeAll(removers),
    };
  } catch (err) {
    await removeAll(removers);
    throw err;
  }
}

/**
 * A Redis failover as a managed Redis makes it: the primary is lost (SIGKILL), the replica is
 * promoted (REPLICAOF NO ONE) and the endpoint moves to it. Resolves once the endpoint leads to
 * a primary that takes writes.
 */
export async function failOverRedis(
  infra: ReplicatedInfra,
  detection: () => Promise<void>,
): Promise<void> {
  await infra.redisPrimary.kill();
  await detection();
  const replica = new Redis(infra.redisReplica.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await replica.connect();
    await replica.call('REPLICAOF', 'NO', 'ONE');
  } finally {
    replica.disconnect();
  }
  infra.redisEndpoint.moveTo({ host: '127.0.0.1', port: infra.redisReplica.port });
}

/**
 * A PostgreSQL failover: the primary lost, `detection` waited out (the service noticing), the
 * standby promoted, the endpoint moved to it.
 */
export async function failOverPostgres(
  infra: ReplicatedInfra,
  detection: () => Promise<void>,
): Promise<{ promotedInMs: number }> {
  const promoted = await infra.postgres.failover(detection);
  infra.postgresEndpoint.moveTo({ host: '127.0.0.1', port: infra.postgres.primary().port });
  return promoted;
}

async function removeAll(removers: Array<() => Promise<void>>): Promise<void> {
  for (const r of removers.reverse()) await r().catch(() => undefined);
}
