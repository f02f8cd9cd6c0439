import type { Auditor } from '@brand/shared/activity';
import { withTransaction } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { recordReceiverActivity as record } from '../receivers/receiverActivity';
import { countPastHistory, requeueSetAside } from './setAside';
import type { StreamDeps } from './streamService';
import { selectStream, type StreamRow } from './streamRepo';

/** Positions named in the activity entry, at most (the count says the rest). */
const NAMED_POSITIONS = 10;

const disabled = (id: string) =>
  new AppError('precondition_failed', `Audit stream ${id} is disabled; enable it first.`);

/**
 * The Resend action of a stream's set-aside entries (owners, as a webhook delivery's resend):
 * each queued again as a new round of its own delivery (setAside.ts), oldest first, at most 100
 * a call, recorded as audit_stream.set_aside_resent with the positions. precondition_failed for
 * a disabled stream, and when nothing set aside waits to be sent again, which is what a second
 * click gets while the first one's are queued: each entry is queued once a resend.
 */
export async function resendSetAside(
  deps: StreamDeps,
  stream: StreamRow,
  audit: Auditor,
): Promise<{ stream: StreamRow; requeued: number; remaining: number }> {
  if (!stream.enabled) throw disabled(stream.id);
  const done = await withTransaction(deps.pool, async (db) => {
    const queued = await requeueSetAside(db, stream.id, deps.historyRetentionMs);
    if (!queued) throw disabled(stream.id);
    const n = queued.requeued.length;
    if (n === 0) {
      // past the history kept is not "sent again earlier": say which it is
      const past = await countPastHistory(db, stream.id, deps.historyRetentionMs);
      const why =
        past === 0
          ? 'entries sent again earlier are queued or delivered'
          : `${past} set-aside ${past === 1 ? 'entry is' : 'entries are'} older than the delivery history kept (${Math.round(deps.historyRetentionMs / 86_400_000)} days) and can no longer be sent`;
      throw new AppError(
        'precondition_failed',
        `Nothing set aside from audit stream ${stream.id} waits to be sent again: ${why}.`,
      );
    }
    const named = queued.requeued.slice(0, NAMED_POSITIONS).join(', ');
    const more = n > NAMED_POSITIONS ? ` and ${n - NAMED_POSITIONS} more` : '';
    await record(
      db,
      audit,
      stream,
      'audit_stream.set_aside_resent',
      `${stream.label}: ${n} set-aside ${n === 1 ? 'entry' : 'entries'} sent again, out of order (position${n === 1 ? '' : 's'} ${named}${more})`,
    );
    return { requeued: n, remaining: queued.remaining };
  });
  return { stream: (await selectStream(deps.pool, stream.id, deps.historyRetentionMs))!, ...done };
}
