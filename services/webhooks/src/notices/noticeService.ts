import { z } from 'zod';
import type { Pool } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { ackNotice, claimNotices, type NoticeRow } from './noticeRepo';

const ClaimInput = z.object({
  limit: z.number().int().min(1, 'must be 1..100').max(100, 'must be 1..100'),
  leaseMs: z.number().int().min(1_000, 'must be 1000..600000').max(600_000, 'must be 1000..600000'),
});

/**
 * Leases unsent disable notices to the console's mailer (limit 0 means 20, lease 0 means
 * 60 s). The mailer mails every owner of the brand, then acknowledges each notice; one not
 * acknowledged within its lease is handed out again.
 */
export function claimReceiverNotices(
  deps: { pool: Pool },
  input: { limit: number; leaseMs: number },
): Promise<NoticeRow[]> {
  const v = parseOrThrow(ClaimInput, {
    limit: input.limit === 0 ? 20 : input.limit,
    leaseMs: input.leaseMs === 0 ? 60_000 : input.leaseMs,
  });
  return claimNotices(deps.pool, v.limit, v.leaseMs);
}

/** Marks a notice sent (again: a no-op). not_found for an unknown id. */
export async function ackReceiverNotice(
  deps: { pool: Pool },
  input: { id: string },
): Promise<void> {
  const v = parseOrThrow(
    z.object({ id: z.string().regex(/^rcn_[A-Za-z0-9]{1,64}$/, 'must be a notice id (rcn_...)') }),
    input,
  );
  if (!(await ackNotice(deps.pool, v.id))) throw new AppError('not_found', `No notice ${v.id}.`);
}
