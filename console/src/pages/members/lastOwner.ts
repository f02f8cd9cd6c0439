import type { Member } from '@brand/proto/access/v1';
import { ROLES } from '@brand/shared/enums';

/** The brand's only owner: records refuses to remove or demote them, so no page offers it. */
export function isLastOwner(member: Member, members: Member[]): boolean {
  const owners = members.filter((m) => ROLES.fromProto(m.role) === 'owner');
  return owners.length === 1 && owners[0]?.id === member.id;
}
