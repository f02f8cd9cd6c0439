-- A version for each SCIM user and group (a security review): a PATCH is read, apply, write back
-- the whole resource, and two PATCHes of the same resource at once both read it before either
-- wrote, so the second put back what the first changed (a deprovisioning undone, a member kept in
-- Owners). Each write now names the version its PATCH read (or the If-Match the provider sent)
-- and records refuses a stale one (provisioning/directoryService.ts); meta.version shows it.
-- Expand only: the previous release neither reads nor writes it, and its writes during the
-- rollout leave it as it was (a write it makes then is not seen as a change by a newer PATCH's
-- check, as before this release).
alter table scim_users add column version bigint not null default 1;
alter table scim_groups add column version bigint not null default 1;
