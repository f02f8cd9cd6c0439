import { z } from 'zod';
import { EVENT_TYPES } from '@brand/shared/enums';

/** One checkbox per event type posts `events` once or several times. */
const eventList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
  .pipe(z.array(z.enum(EVENT_TYPES.names)).min(1, 'Select at least one event type.'));

/**
 * The add and edit forms. The URL rules (https only, public addresses, no credentials, no
 * team-chat hosts) live in the webhooks service, which explains a refusal in its own words.
 */
export const ReceiverForm = z.object({
  url: z.string().trim().min(1, 'Enter the receiver URL (https://...).').max(2048),
  label: z.string().trim().min(1, 'Give the receiver a label.').max(200),
  events: eventList,
});

export const TestForm = z.object({ event_type: z.enum(EVENT_TYPES.names) });

export const RECEIVER_ID = /^rcv_[A-Za-z0-9]{1,64}$/;
export const DELIVERY_ID = /^dlv_[A-Za-z0-9]{1,64}$/;
