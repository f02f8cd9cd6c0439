import pg from 'pg';
import { pgConnection } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';

/** The channel the outbox insert trigger (migrations/0004_outbox.sql) notifies at commit. */
const OUTBOX_CHANNEL = 'outbox';
const RECONNECT_MS = 2_000;

/**
 * Keeps one dedicated connection LISTENing on "outbox" and calls `onNotify` for every
 * notification, so the relay publishes a committed change at once instead of at its next
 * poll. A lost connection is re-established every 2 s; meanwhile the poll interval keeps
 * the relay going, so a missed notification only delays an event. Never throws.
 */
export function listenForOutbox(opts: {
  connectionString: string;
  /** DATABASE_SSL_CA_FILE: the same verified TLS as the pools. */
  sslCaFile?: string | undefined;
  log: Logger;
  onNotify: () => void;
}): { close(): Promise<void> } {
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let warned = false;

  const reconnectLater = (): void => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, RECONNECT_MS);
    timer.unref();
  };

  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      ...pgConnection({
        DATABASE_URL: opts.connectionString,
        DATABASE_SSL_CA_FILE: opts.sslCaFile,
      }),
      application_name: 'records-outbox-listen',
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    c.on('notification', (msg) => {
      if (msg.channel === OUTBOX_CHANNEL) opts.onNotify();
    });
    c.on('error', () => undefined);
    c.on('end', () => {
      if (client === c) client = undefined;
      reconnectLater();
    });
    try {
      await c.connect();
      await c.query(`listen ${OUTBOX_CHANNEL}`);
      if (closed) return void (await c.end().catch(() => undefined));
      client = c;
      if (warned) opts.log.info('listening for outbox notifications again');
      warned = false;
      // anything committed while we were not listening is picked up now
      opts.onNotify();
    } catch (err) {
      if (!warned) opts.log.warn({ err }, 'cannot LISTEN for outbox notifications; polling');
      warned = true;
      await c.end().catch(() => undefined);
      reconnectLater();
    }
  };

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
