import type { ScimGroup, ScimToken, ScimUser } from '@brand/proto/access/v1/provisioning';
import type { ScimGroupView, ScimUserView } from './directoryService';
import type { ScimTokenRow } from './scimTokenRepo';

export const toScimToken = (t: ScimTokenRow): ScimToken => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  created_at: t.created_at,
  created_by: t.created_by,
  expires_at: t.expires_at ?? '',
  revoked_at: t.revoked_at ?? '',
  last_used_at: t.last_used_at ?? '',
});

export const toScimUser = (u: ScimUserView): ScimUser => ({
  id: u.id,
  user_name: u.user_name,
  external_id: u.external_id ?? '',
  display_name: u.display_name,
  given_name: u.given_name,
  family_name: u.family_name,
  emails: u.emails.map((e) => ({ value: e.value, type: e.type, primary: e.primary })),
  active: u.active,
  groups: u.groups,
  version: u.version,
  created_at: u.created_at,
  updated_at: u.updated_at,
});

export const toScimGroup = (g: ScimGroupView): ScimGroup => ({
  id: g.id,
  display_name: g.display_name,
  external_id: g.external_id ?? '',
  members: g.members,
  version: g.version,
  created_at: g.created_at,
  updated_at: g.updated_at,
});
