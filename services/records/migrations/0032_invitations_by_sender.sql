-- The open invitations a member sent, found when they leave the brand or lose the owner role
-- (invitations/withdrawOpenInvitation.ts: withdrawn with them). Partial: only open ones are asked
-- for, and few are open at a time.
create index member_invitations_open_by_sender_idx
  on member_invitations (invited_by_member_id)
  where outcome is null;
