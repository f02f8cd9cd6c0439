-- The open invitations a member sent, found when they leave the brand or lose the owner role
-- (invitations/withdrawOpenInvitation.ts: withdrawn with them). Partial: only open ones are asked
-- for, and few are open at a time.
create index member_invitations_open_by_sender_idx
  on member_invitations (invited_by_member_id)
  where outcome is null;

-- The invitations still open whose sender has already left the brand or is no longer an owner
-- (before this release, nothing withdrew them): withdrawn now, as a removal or a demotion does
-- from this release on; their mails not yet sent go with them. Operators' invitations (no
-- sender member) are left alone.
with stale as (
  select i.id from member_invitations i
   where i.outcome is null and i.invited_by_member_id <> ''
     and not exists (
       select 1 from brand_members m
        where m.id = i.invited_by_member_id and m.removed_at is null and m.role = 'owner')
), unmailed as (
  delete from member_mails where invitation_id in (select id from stale)
)
update member_invitations set outcome = 'withdrawn', answered_at = now()
 where id in (select id from stale);
