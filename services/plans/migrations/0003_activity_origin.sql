-- Issue 42 part 5: every activity row carries the address and User-Agent of the request that
-- made it (the same columns in every service's activity table, packages/shared/src/activity).
alter table activity
  add column client_address text not null default '',
  add column user_agent text not null default '';
