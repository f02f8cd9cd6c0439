import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './freePort';
import { kafkaSh, killBroker } from './ownKafka';

/** One node of a test's own KRaft cluster: broker and controller in one JVM. */
export interface KafkaNode {
  id: number;
  /** Its PLAINTEXT listener, "127.0.0.1:<port>". */
  broker: string;
  /** SIGKILLs the node (a crash, as a lost machine) and waits until it is gone; its data stays. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data; resolves once it serves. */
  start(): Promise<void>;
}

/**
 * A Kafka cluster of a test's own (never the shared broker): `size` nodes from scripts/kafka.sh,
 * each broker and controller, with the replication a production cluster has (issue 60: three
 * brokers, replication 3, min.insync.replicas 2).
 */
export interface OwnKafkaCluster {
  /** Every broker's address: what KAFKA_BROKERS lists. */
  brokers: string[];
  nodes: KafkaNode[];
  /** Stops every node and deletes their data. */
  remove(): Promise<void>;
}

export async function startOwnKafkaCluster(
  opts: { size?: number; replication?: number; minInsyncReplicas?: number } = {},
): Promise<OwnKafkaCluster> {
  const size = opts.size ?? 3;
  const replication = opts.replication ?? Math.min(3, size);
  const minIsr = opts.minInsyncReplicas ?? Math.max(1, replication - 1);
  const root = mkdtempSync(path.join(tmpdir(), 'brand-kafka-cluster-'));
  // A Kafka Uuid: 16 bytes, base64url without padding; never a leading '-' (an option).
  const clusterId = `A${randomBytes(16).toString('base64url').slice(1, 22)}`;
  const ports: Array<{ port: number; controller: number }> = [];
  for (let i = 0; i < size; i++)
    ports.push({ port: await freePort(), controller: await freePort() });
  const voters = ports.map((p, i) => `${i + 1}@127.0.0.1:${p.controller}`).join(',');
  const envOf = (i: number): Record<string, string> => ({
    KAFKA_NODE_ID: String(i + 1),
    KAFKA_PORT: String(ports[i]!.port),
    KAFKA_CONTROLLER_PORT: String(ports[i]!.controller),
    KAFKA_CONTROLLER_QUORUM_VOTERS: voters,
    KAFKA_CLUSTER_ID: clusterId,
    KAFKA_REPLICATION_FACTOR: String(replication),
    KAFKA_MIN_INSYNC_REPLICAS: String(minIsr),
    KAFKA_DATA_DIR: path.join(root, `node-${i + 1}`),
  });
  const nodes: KafkaNode[] = ports.map((p, i) => ({
    id: i + 1,
    broker: `127.0.0.1:${p.port}`,
    kill: () => killBroker(path.join(root, `node-${i + 1}`, 'kafka.pid')),
    start: () => kafkaSh('ensure', envOf(i)),
  }));
  // SIGKILL, not a clean stop: the data is thrown away, and a broker whose peer is gone waits
  // out its controlled shutdown (20 s) before kafka.sh kills it anyway
  const remove = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.kill().catch(() => undefined)));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    // Together: a node serves only once a majority of the voters runs.
    await Promise.all(nodes.map((n) => n.start()));
  } catch (err) {
    await remove();
    throw err;
  }
  return { brokers: nodes.map((n) => n.broker), nodes, remove };
}
