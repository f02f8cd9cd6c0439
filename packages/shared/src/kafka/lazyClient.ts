/** A kafkajs producer, consumer or admin: whatever connects and disconnects. */
interface Connectable {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

/** A client connected on first use and dropped after a failure. */
export interface LazyClient<T extends Connectable> {
  /** The connected client, connecting a new one when there is none. */
  get(): Promise<T>;
  /** Disconnects and forgets the client: the next get() starts afresh. Never throws. */
  drop(): Promise<void>;
}

/**
 * Connects a kafkajs client from `create` on first use. A client whose connect failed is
 * disconnected at once, so nothing keeps retrying in the background: the next get() starts
 * afresh. Callers drop() a client after a failure that may leave it in a bad state.
 */
export function lazyKafkaClient<T extends Connectable>(create: () => T): LazyClient<T> {
  let client: T | undefined;
  return {
    async get() {
      if (client) return client;
      const created = create();
      try {
        await created.connect();
      } catch (err) {
        await created.disconnect().catch(() => undefined);
        throw err;
      }
      client = created;
      return created;
    },
    async drop() {
      const old = client;
      client = undefined;
      await old?.disconnect().catch(() => undefined);
    },
  };
}
