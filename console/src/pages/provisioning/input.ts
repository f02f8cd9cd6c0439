import { z } from 'zod';
import { ROLES } from '@brand/shared/enums';

/** The forms of the Provisioning page; records checks each value again. */
export const TokenForm = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Name the token (the provider it is for, e.g. Okta).')
    .max(100, 'A token name is at most 100 characters.'),
});
export const RotateForm = z.object({
  old_token_expires_in: z.enum(['now', '1h', '24h', '7d'], 'Choose how long the old token works.'),
});
export const MappingForm = z.object({
  group_key: z
    .string()
    .trim()
    .min(1, 'Name the group.')
    .max(256, 'A group is at most 256 characters.'),
  role: z.enum(ROLES.names, 'Choose a role.'),
});
export const RemoveMappingForm = z.object({ group_key: z.string().min(1).max(256) });
export const SettingsForm = z.object({
  jit_enabled: z.literal('on').optional(),
  jit_groups_claim: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_:./-]{1,100}$/, 'The groups claim is a claim name, such as groups.'),
  revoke_keys_on_deprovision: z.literal('on').optional(),
});
export const TOKEN_ID = /^sct_[A-Za-z0-9]{1,64}$/;
