// The whole system of the fault suite, on infrastructure of its own: a PostgreSQL, a Redis and
// a Kafka broker it may stop (never the machine's shared ones), or their replicated forms for
// the failovers (infra.ts), the four processes built from dist on fixed ports (a restarted
// process comes back where its callers expect it), and one HTTPS receiver that verifies every
// delivery as docs/contract.md#receiver-verification tells receivers to.
import path from 'node:path';
import pg from 'pg';
import {
  startReceiver,
  type RunningReceiver,
  type ScriptedResponse,
} from '@brand/example-receiver';
import {
  createAdminClient,
  createTestCa,
  createTopic,
  createWebhooksClient,
  freePort,
  makeBrandWithKey,
  makePendingSubmissions,
  makeRecords,
  runMigrateScript,
  startGateway,
  startPlans,
  startRecords,
  startWebhooks,
  stopAllServices,
  uniqueConsumerGroup,
  uniqueTopic,
  type AdminClient,
  type ServiceProcess,
  type TestCa,
} from '@brand/testkit';
import { EVENT_TYPES } from '@brand/shared/enums';
import { startSingleInfra, type Infra, type SingleInfra } from './infra';

export type ProcessName = 'gateway' | 'records' | 'plans' | 'webhooks';

/** What the receiver answers now: normally (verify, process once, 200), 500, or never. */
export type ReceiverMode = 'normal' | 500 | 'hang';

/** One brand of one fault: a key that may prepare plans, and pending submissions to approve. */
export interface FaultBrand {
  id: string;
  ownerEmail: string;
  key: string;
  /** Pending submissions not yet approved. */
  pending: string[];
}

export interface World<I extends Infra = SingleInfra> {
  /** The PostgreSQL, Redis and Kafka the processes use, and the handles to fail them. */
  infra: I;
  /** A pool on the suite's database (search_path: records, plans, webhooks). */
  pool: pg.Pool;
  /** That database's URL, as the processes have it (the upgrade test migrates it). */
  databaseUrl: string;
  admin: AdminClient;
  gatewayUrl: string;
  processes: Record<ProcessName, ServiceProcess>;
  receiver: RunningReceiver;
  /** When each event id first reached the receiver and was processed (ms since the epoch). */
  deliveredAt: Map<string, number>;
  /** Switches what the receiver answers from now on. */
  setReceiverMode(mode: ReceiverMode): void;
  /**
   * SIGKILLs a process and starts it again on the same port, as an orchestrator would at once;
   * returns when the new process was spawned, and `listening` settles once it listens.
   */
  killAndRestart(name: ProcessName): Promise<{ listening: Promise<void> }>;
  /** A new brand (tier as given) with a key, subscribed with the receiver to all four events. */
  newBrand(tier: 'plus' | 'enterprise', submissions: number): Promise<FaultBrand>;
  close(): Promise<void>;
}

/** A world on any infrastructure: what the traffic and the verdict need. */
export type AnyWorld = World<Infra>;

const DATABASE = 'brand_faults';

/** The suite's world on a PostgreSQL, a Redis and a Kafka broker of its own (infra.ts). */
export function startWorld(): Promise<World> {
  return startWorldOn(startSingleInfra);
}

/** The world on the infrastructure `startInfra` makes (single servers, or replicated ones). */
export async function startWorldOn<I extends Infra>(
  startInfra: () => Promise<I>,
  opts: {
    /**
     * Another build to run (an earlier release's worktree, for the upgrade test): its four
     * processes and its migrations, where this tree's run by default.
     */
    release?: string;
  } = {},
): Promise<World<I>> {
  const servicesDir = opts.release ? path.join(opts.release, 'services') : undefined;
  const mainOf = (dir: string): { main?: string } =>
    opts.release ? { main: path.join(opts.release, dir, 'dist/main.js') } : {};
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const infra = await startInfra();
    closers.push(() => infra.remove());
    const redis = { url: infra.redisUrl };
    const kafka = { brokers: infra.brokers };
    const ca: TestCa = createTestCa();
    closers.push(() => ca.remove());

    const adminPool = new pg.Pool({ connectionString: infra.postgresUrl('postgres'), max: 1 });
    await adminPool.query(`create database ${DATABASE}`);
    await adminPool.end();
    const databaseUrl = infra.postgresUrl(DATABASE);
    for (const service of ['records', 'plans', 'webhooks'])
      await runMigrateScript(service, databaseUrl, servicesDir);
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 4,
      options: '-c search_path=records,plans,webhooks,public',
    });
    pool.on('error', () => undefined); // a PostgreSQL restart cuts its idle connections
    closers.push(() => pool.end());

    const topic = uniqueTopic('faults');
    const groupId = uniqueConsumerGroup('faults');
    await createTopic(topic, 3, kafka.brokers);
    const ports = {
      records: await freePort(),
      plans: await freePort(),
      gateway: await freePort(),
      webhooks: await freePort(),
    };
    const redisKeyPrefix = 'faults:';
    const start: Record<ProcessName, () => Promise<ServiceProcess>> = {
      records: () =>
        startRecords({
          ...mainOf('services/records'),
          databaseUrl,
          redisUrl: redis.url,
          redisKeyPrefix,
          env: {
            GRPC_PORT: String(ports.records),
            KAFKA_BROKERS: kafka.brokers.join(','),
            BUSINESS_EVENTS_TOPIC: topic,
          },
        }),
      plans: () =>
        startPlans({
          ...mainOf('services/plans'),
          databaseUrl,
          env: { GRPC_PORT: String(ports.plans) },
        }),
      gateway: () =>
        startGateway({
          ...mainOf('gateway'),
          recordsAddr: `127.0.0.1:${ports.records}`,
          plansAddr: `127.0.0.1:${ports.plans}`,
          redisUrl: redis.url,
          redisKeyPrefix,
          env: { HTTP_PORT: String(ports.gateway) },
        }),
      webhooks: () =>
        startWebhooks({
          ...mainOf('services/webhooks'),
          databaseUrl,
          topic,
          groupId,
          caFile: ca.caFile,
          brokers: kafka.brokers,
          env: { GRPC_PORT: String(ports.webhooks) },
        }),
    };
    closers.push(() => stopAllServices());
    const processes = {} as Record<ProcessName, ServiceProcess>;
    for (const name of ['records', 'plans', 'gateway', 'webhooks'] as const) {
      processes[name] = await start[name]();
    }
    const admin = createAdminClient(`127.0.0.1:${ports.records}`);
    closers.push(() => admin.close());

    let mode: ReceiverMode = 'normal';
    const deliveredAt = new Map<string, number>();
    const secrets: string[] = [];
    const receiver = await startReceiver({
      tls: ca.tls,
      secrets,
      acceptedTypes: EVENT_TYPES.names,
      keepReceived: 1_000_000,
      keepReceivedBytes: Number.POSITIVE_INFINITY,
      respondWith: (): ScriptedResponse | undefined => (mode === 'normal' ? undefined : mode),
      onDelivery: (d) => {
        if (d.outcome === 'processed' && d.event && !deliveredAt.has(d.event.id))
          deliveredAt.set(d.event.id, Date.now());
      },
    });
    closers.push(() => receiver.close());

    return {
      infra,
      pool,
      databaseUrl,
      admin,
      gatewayUrl: `http://127.0.0.1:${ports.gateway}`,
      processes,
      receiver,
      deliveredAt,
      setReceiverMode: (m) => (mode = m),
      async killAndRestart(name) {
        await processes[name].kill();
        const started = start[name]().then((p) => {
          processes[name] = p;
        });
        return { listening: started };
      },
      async newBrand(tier, submissions) {
        const made = await makeBrandWithKey(admin, {
          tier,
          permissions: tier === 'plus' ? [] : ['campaigns:prepare'],
        });
        await makeRecords(pool, made.brand.id, 'campaigns', 5);
        const pending =
          submissions > 0 ? await makePendingSubmissions(pool, made.brand.id, submissions) : [];
        const client = createWebhooksClient(`127.0.0.1:${ports.webhooks}`);
        try {
          const res = await client.call('addReceiver', {
            brand_id: made.brand.id,
            url: `${receiver.url}/hooks`,
            label: 'fault suite receiver',
            events: EVENT_TYPES.names.map((e) => EVENT_TYPES.toProto(e)),
            actor_email: made.owner.email,
          });
          secrets.push(res.secret);
        } finally {
          client.close();
        }
        return {
          id: made.brand.id,
          ownerEmail: made.owner.email,
          key: made.secret,
          pending: pending.map((s) => s.id),
        };
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
