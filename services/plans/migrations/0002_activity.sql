-- The audit log of the Developers area for campaign plans (issue 15): the same
-- shape as every service's activity table (packages/shared/src/activity).
create table activity (
  id text collate "C" primary key,
  brand_id text collate "C" not null,
  action text not null,
  actor_member_id text not null default '',
  actor_email text not null,
  subject_id text not null default '',
  summary text not null default '',
  created_at timestamptz not null default now()
);
create index activity_brand_created_idx on activity (brand_id, created_at desc, id desc);
