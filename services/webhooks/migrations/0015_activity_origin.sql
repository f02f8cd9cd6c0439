-- Every activity row carries the address and User-Agent of the request that made it, as in
-- records and plans (packages/shared/src/activity): the webhooks service's rows too (receiver
-- changes, rotations, recoveries; '' for what the service does by itself, such as catch-up).
alter table activity
  add column client_address text not null default '',
  add column user_agent text not null default '';
