import type { MemberInvitation } from '@brand/proto/access/v1';
import { ROLES } from '@brand/shared/enums';
import type { InvitationRow } from './invitationRepo';

export const toInvitation = (i: InvitationRow): MemberInvitation => ({
  id: i.id,
  brand_id: i.brand_id,
  email: i.email,
  role: ROLES.toProto(i.role),
  invited_by: i.invited_by_email,
  created_at: i.created_at,
  expires_at: i.expires_at,
  state: i.state,
  brand_name: i.brand_name,
});
