-- The brands an address was removed from while this session lived (a hostile review of
-- 2026-12-01): a session opened by an emailed link or a passkey belongs to the address and keeps
-- its other brands after a removal, but it never opens a brand it was removed from again, even
-- once the address is a member there again (an invitation accepted, an operator, SCIM): "a
-- removed member invited back starts from a new sign-in". Before this, memberships were read
-- afresh by address, so every old session (a stolen one too) opened the brand again at once.
-- Expand only: the previous release neither reads nor writes it.
alter table console_sessions add column left_brand_ids text[] not null default '{}';
