-- The member who made each SCIM token (a security review): a token speaks with its maker's
-- authority, so it is revoked when they leave the brand or lose the owner role, as the invitations
-- they sent are withdrawn (provisioning/scimTokens.ts, access/endMembership.ts). Null for an
-- operator's token. Expand only: the previous release neither reads nor writes it, and its tokens
-- made during the rollout are found by their maker's address below when a later release asks.
alter table scim_tokens add column created_by_member_id text collate "C";
create index scim_tokens_live_by_maker_idx on scim_tokens (created_by_member_id)
  where revoked_at is null;

-- Tokens made before this release name their maker by address (created_by): the brand's member
-- of that address, present or past (a member restored keeps their id). Tokens whose maker has
-- already left or lost the owner role are left working: revoking them here would stop the
-- brand's provisioning unannounced; owners see each token's maker on the Provisioning page.
update scim_tokens t set created_by_member_id = m.id
  from brand_members m
 where t.created_by_member_id is null and m.brand_id = t.brand_id and m.email = t.created_by;
