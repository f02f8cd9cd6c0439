import { z } from 'zod';
import { EVENT_TYPES } from '@brand/shared/enums';
import { MAX_SWITCH_AHEAD_MS } from '@brand/shared/webhooks';
import { parseUtcTimeText } from '../../views/utcTimeInput';

/** One checkbox per event type posts `events` once or several times. */
const eventList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
  .pipe(
    z
      .array(z.enum(EVENT_TYPES.names, 'Choose event types from the list.'))
      .min(1, 'Select at least one event type.'),
  );

/**
 * The add and edit forms. The URL rules (https only, public addresses, no credentials, no
 * team-chat hosts) live in the webhooks service, which explains a refusal in its own words.
 */
export const ReceiverForm = z.object({
  url: z
    .string()
    .trim()
    .min(1, 'Enter the receiver URL (https://...).')
    .max(2048, 'A receiver URL is at most 2048 characters.'),
  // 100, as the webhooks service takes it: at 200 a label of 101 came back in zod's words
  label: z
    .string()
    .trim()
    .min(1, 'Give the receiver a label.')
    .max(100, 'A receiver label is at most 100 characters.'),
  events: eventList,
});

export const TestForm = z.object({
  event_type: z.enum(EVENT_TYPES.names, 'Choose one of the receiver’s event types.'),
  /** "1" signs the test with a pending rotation's new secret. */
  with_new_secret: z.literal('1').optional(),
});

export const RECEIVER_ID = /^rcv_[A-Za-z0-9]{1,64}$/;
export const DELIVERY_ID = /^dlv_[A-Za-z0-9]{1,64}$/;

const HOUR_MS = 3_600_000;

/**
 * The switch form as SwitchSecretRequest.at: "" for now, else an RFC 3339 time. A chosen
 * time is typed like the console's other times ("2026-11-20 14:00", read as UTC, as the page
 * says; the datetime-local form "2026-11-20T14:00" the field used to post still reads) and
 * must be ahead of `now` and at most 7 days ahead.
 */
export function switchTimeOf(
  body: Record<string, unknown>,
  now: Date,
): { at: string } | { error: string } {
  const when = body.when;
  if (when === 'now') return { at: '' };
  if (when === '1h' || when === '24h') {
    return { at: new Date(now.getTime() + (when === '1h' ? 1 : 24) * HOUR_MS).toISOString() };
  }
  if (when !== 'at')
    return { error: 'Choose when to switch: now, in 1 hour, in 24 hours or at a time.' };
  const at = parseUtcTimeText(body.at);
  if (!at) return { error: 'Enter the time to switch at, in UTC (for example 2026-11-24 09:00).' };
  if (at.getTime() <= now.getTime()) {
    return { error: 'That time has passed: choose a time ahead, or switch now.' };
  }
  if (at.getTime() - now.getTime() > MAX_SWITCH_AHEAD_MS) {
    return { error: 'A switch can be scheduled at most 7 days ahead.' };
  }
  return { at: at.toISOString() };
}

/**
 * The start of a recovery window, from the preview form (a time typed in UTC) or the confirm
 * form (the RFC 3339 time the preview was made for). The window's bounds are the service's to
 * enforce; a time ahead of now is refused here, as it could match nothing.
 */
export function recoverySinceOf(value: unknown, now: Date): { since: Date } | { error: string } {
  const since = parseUtcTimeText(value);
  if (!since) {
    return { error: 'Enter the time to recover from, in UTC (for example 2026-11-20 14:00).' };
  }
  if (since.getTime() > now.getTime()) return { error: 'Choose a time in the past.' };
  return { since };
}

/** A recovery's idempotency key: a UUID made when the preview was shown. */
export const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
