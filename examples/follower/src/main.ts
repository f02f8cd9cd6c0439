import {
  BrandRecords,
  CursorExpiredError,
  PositionBeyondHeadError,
  type FeedEvent,
} from '@brand-records/client';
import {
  CheckpointLockedError,
  openCheckpointFile,
  type CheckpointFile,
} from '@brand-records/client/checkpoint-file';

/**
 * An integration behind a firewall: no public URL, so no receiver. It follows the brand's
 * events feed over outbound HTTPS with its API key, from the checkpoint it stored last, and
 * hands each event to handleEvent once, in feed order, across its own restarts and the
 * service's (docs/webhooks.md "Following the events feed instead of a receiver").
 *
 *   BRAND_RECORDS_URL=https://api.example.com BRAND_RECORDS_KEY=bk_live_... \
 *   CHECKPOINT_FILE=./events.checkpoint node dist/main.js
 */
async function main(): Promise<void> {
  const baseUrl = required('BRAND_RECORDS_URL');
  const apiKey = required('BRAND_RECORDS_KEY');
  const file = process.env.CHECKPOINT_FILE ?? 'events.checkpoint';
  const client = new BrandRecords({ apiKey, baseUrl });
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());

  let checkpoint: CheckpointFile;
  try {
    // one checkpoint, one follower: a second would hand every event twice
    checkpoint = await openCheckpointFile(file);
  } catch (err) {
    if (!(err instanceof CheckpointLockedError)) throw err;
    say(err.message);
    process.exitCode = 3;
    return;
  }
  const { from, tookOverFrom } = checkpoint;
  if (tookOverFrom) say(`took over the lock of pid ${tookOverFrom.pid}, which no longer runs`);
  say(
    `following from position ${from.after} (${from.handled.length} handled there), holding ${checkpoint.lockPath}`,
  );
  try {
    await client.events.follow({
      from,
      // a poll every 5 s while nothing is new costs one 304 of the brand's rate limit
      intervalMs: 5_000,
      signal: stop.signal,
      onEvent: handleEvent,
      onCheckpoint: checkpoint.save,
    });
  } catch (err) {
    if (err instanceof CursorExpiredError) {
      // away longer than the history is kept: start over and reconcile from the lists
      say(
        'the stored position is older than the kept history; reconcile, then delete the checkpoint',
      );
      process.exitCode = 2;
      return;
    }
    if (err instanceof PositionBeyondHeadError) {
      // a checkpoint of another environment or brand: it names no position of this feed
      say(`${err.message} Is ${file} this brand's checkpoint?`);
      process.exitCode = 2;
      return;
    }
    throw err;
  } finally {
    await checkpoint.close();
  }
}

/** What the integration does with one event: here, print it; yours updates its own books. */
function handleEvent(event: FeedEvent): void {
  const object = event.data.object;
  process.stdout.write(
    `${event.created_at} ${event.type} ${String(object.resource)} ${String(object.id)} ${event.id}\n`,
  );
}

/** A line for the operator, on stderr (stdout carries the events). */
function say(text: string): void {
  process.stderr.write(`follower: ${text}\n`);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

main().catch((err: unknown) => {
  say(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
