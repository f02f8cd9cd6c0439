import { z } from 'zod';
import { KEY_OVERLAP_SECONDS, KEY_OVERLAPS } from '@brand/shared/enums';
import { refuseUnlessOneLine } from '@brand/shared/text';
import { parseUtcTimeText } from '../../views/utcTimeInput';

/** The expiry choices of the create-key form: none, a span from now, or a time (UTC). */
const CREATE_EXPIRIES = ['none', '1h', '24h', '7d', 'at'] as const;

/** The create-key form. The rules (tier, owner, live-only campaigns:prepare) live in records. */
export const CreateKeyForm = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Give the key a name, e.g. "Warehouse sync".')
    .max(200, 'A key name is at most 200 characters.')
    // the rule's own words: a text-direction control was told "without control characters"
    .superRefine(refuseUnlessOneLine((why) => `A key name ${why}.`)),
  environment: z.enum(['live', 'test'], 'Choose live or test.'),
  campaigns_prepare: z.literal('on').optional(),
  audit_read: z.literal('on').optional(),
  // allowed networks as typed (issue 63): records reads and checks them (readNetworks)
  allowed_networks: z.string().max(4000, 'Give at most 32 networks.').optional(),
  expires: z.enum(CREATE_EXPIRIES, 'Choose when the key expires.').default('none'),
  expires_at: z.string().max(40, 'Give the expiry as a date and time (UTC).').optional(),
});

/**
 * A key's networks page's form: the list as typed, once. Not a string (a field sent twice) or
 * too long is refused rather than read as an empty list (any network) or cut (a cut
 * 192.0.0.0/24 reads as 192.0.0.0/2: a review of 2026-11-30).
 */
export const KeyNetworksForm = z.object({
  allowed_networks: z
    .string('Send the networks once, as text.')
    .max(4000, 'Give at most 32 networks.'),
});

/**
 * The expiry a create-key form asks for, as the RFC 3339 time CreateKey takes ('' for none),
 * or an error sentence. Spans count from now; a time is read as UTC, like every time the
 * console shows. Records checks the rest (in the future, within ten years).
 */
export function requestedExpiry(
  form: z.infer<typeof CreateKeyForm>,
  now = Date.now(),
): { expiresAt: string } | { error: string } {
  if (form.expires === 'none') return { expiresAt: '' };
  if (form.expires === 'at') {
    const at = parseUtcTimeText(form.expires_at);
    if (!at) return { error: 'Give the expiry as a date and time (UTC).' };
    if (at.getTime() <= now) return { error: 'The expiry must be in the future.' };
    return { expiresAt: at.toISOString() };
  }
  return { expiresAt: new Date(now + KEY_OVERLAP_SECONDS[form.expires] * 1000).toISOString() };
}

/** The roll form: how long the old key keeps working next to its replacement. */
export const RollKeyForm = z.object({
  old_key_expires_in: z.enum(KEY_OVERLAPS.names, 'Choose when the old key stops working.'),
});

/** Key ids as records mints them. */
export const KEY_ID = /^key_[A-Za-z0-9]{1,64}$/;
