import type { Pool } from 'pg';
import type { AdminClient } from './adminClient';
import { makePendingSubmissions } from './makeRecords';

/** Business changes approved one after another while a test disturbs the system around them. */
export interface ChangeFlow {
  /** The event ids of the approvals accepted so far, in order. */
  readonly accepted: readonly string[];
  /** How many approvals were accepted; throws the first approval's error once one failed. */
  count(): number;
  /** Stops after the approval in flight and resolves with every accepted event id. */
  stop(): Promise<string[]>;
}

/** Pending submissions made at a time; refilled whenever they run out. */
const BATCH = 40;

/**
 * Approves a pending submission of `brandId` every `everyMs` until stopped. Submissions are made
 * as the flow needs them, so however long a loaded machine takes over the disturbance (a broker
 * restart, a dump), changes keep coming: a fixed stock once ran dry in CI before a broker had
 * restarted, and the test then waited for changes that were never asked for. An approval that
 * fails (Kafka and the webhooks play no part in it) ends the flow, and `count` reports it.
 */
export function startChangeFlow(opts: {
  admin: Pick<AdminClient, 'records'>;
  pool: Pool;
  brandId: string;
  everyMs: number;
}): ChangeFlow {
  const accepted: string[] = [];
  const pending: Array<{ id: string }> = [];
  let running = true;
  let failure: { error: unknown } | undefined;
  const loop = (async () => {
    while (running) {
      if (pending.length === 0) {
        pending.push(...(await makePendingSubmissions(opts.pool, opts.brandId, BATCH)));
      }
      const res = await opts.admin.records('approveSubmission', {
        submission_id: pending.shift()!.id,
      });
      accepted.push(res.event_id);
      await new Promise((r) => setTimeout(r, opts.everyMs));
    }
  })().catch((error: unknown) => {
    failure = { error };
  });
  return {
    accepted,
    count() {
      if (failure) throw failure.error;
      return accepted.length;
    },
    async stop() {
      running = false;
      await loop;
      if (failure) throw failure.error;
      return [...accepted];
    },
  };
}
