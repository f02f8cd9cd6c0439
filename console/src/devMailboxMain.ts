import path from 'node:path';
import { createLogger } from '@brand/shared/logger';
import { startDevMailbox } from './mail/devMailbox';

/**
 * `node console/dist/devMailboxMain.js`: the local stack's mail sink (scripts/up.sh starts it).
 * MAILBOX_DIR (default .local/mailbox), MAILBOX_PORT (default 2525), MAILBOX_HOST (default
 * 127.0.0.1; docker-compose sets 0.0.0.0 inside its private network).
 */
async function main(): Promise<void> {
  const log = createLogger({ service: 'mailbox', level: 'info' });
  const dir = path.resolve(process.env.MAILBOX_DIR ?? '.local/mailbox');
  const mailbox = await startDevMailbox({
    dir,
    port: Number(process.env.MAILBOX_PORT ?? 2525),
    host: process.env.MAILBOX_HOST ?? '127.0.0.1',
  });
  log.info({ port: mailbox.port, dir }, 'listening');
  const stop = () => void mailbox.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
