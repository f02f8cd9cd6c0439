import { isCalendarInstant } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import type { PlanPosition } from './planRepo';

const PLAN_ID = /^pln_[A-Za-z0-9]{1,64}$/;

/**
 * Page tokens of the admin listing: the last row's exact (created_at, id), base64url. They
 * are not signed: only operators holding the admin token list plans, and a forged token
 * only moves the starting point within the brand they name anyway.
 */
export function encodePageToken(last: PlanPosition): string {
  return Buffer.from(JSON.stringify([last.created_at, last.id]), 'utf8').toString('base64url');
}

/** The position a token names; invalid_cursor for anything this service did not issue. */
export function decodePageToken(token: string): PlanPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2) {
      const [createdAt, id] = value as unknown[];
      if (typeof createdAt === 'string' && isCalendarInstant(createdAt)) {
        if (typeof id === 'string' && PLAN_ID.test(id)) return { created_at: createdAt, id };
      }
    }
  } catch {
    // fall through: not JSON
  }
  throw new AppError('invalid_cursor', 'page_token is not a token this listing issued.');
}
