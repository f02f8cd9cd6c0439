import { z } from 'zod';

/** The create-key form. The rules (tier, owner, live-only campaigns:prepare) live in records. */
export const CreateKeyForm = z.object({
  name: z.string().trim().min(1, 'Give the key a name, e.g. "Warehouse sync".').max(200),
  environment: z.enum(['live', 'test'], 'Choose live or test.'),
  campaigns_prepare: z.literal('on').optional(),
});

/** Key ids as records mints them. */
export const KEY_ID = /^key_[A-Za-z0-9]{1,64}$/;
