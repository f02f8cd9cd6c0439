-- Issue 61: people from the brand's identity provider. SCIM 2.0 (RFC 7643, 7644) keeps a
-- directory of the brand's users and groups as the provider pushes them; records derives each
-- user's membership (at the brand's verified domains only) and role (the highest role mapped from
-- their groups). Just-in-time membership applies the same mapping at a single sign-on. Expand
-- only: the previous release reads and writes none of this.

-- Bearer tokens a provider presents at /scim/v2. Shown once, kept as SHA-256; a rotation gives the
-- old token an expiry (the overlap), a revocation ends it at once. Each reaches its brand only.
create table scim_tokens (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  name text not null check (length(name) between 1 and 100),
  token_hash bytea not null unique check (length(token_hash) = 32),
  -- the first characters, to recognise it on the page
  prefix text not null,
  created_at timestamptz not null default now(),
  created_by text not null,
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index scim_tokens_brand_idx on scim_tokens (brand_id, created_at);

-- The users the provider pushed, as it pushed them (userName, externalId, names, emails, active),
-- and the membership records derived for each (member_id; null while it derives none: inactive,
-- or an address outside the verified domains).
create table scim_users (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  user_name text not null,
  external_id text,
  display_name text not null default '',
  given_name text not null default '',
  family_name text not null default '',
  -- the address the membership is for: the primary (or work) email, else userName; lower case
  email text not null check (email = lower(email)),
  emails jsonb not null default '[]',
  active boolean not null default true,
  member_id text collate "C" references brand_members (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index scim_users_name_idx on scim_users (brand_id, lower(user_name));
create unique index scim_users_email_idx on scim_users (brand_id, email);
create unique index scim_users_external_idx on scim_users (brand_id, external_id)
  where external_id is not null;

create table scim_groups (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  display_name text not null,
  external_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index scim_groups_name_idx on scim_groups (brand_id, lower(display_name));

create table scim_group_members (
  group_id text collate "C" not null references scim_groups (id) on delete cascade,
  user_id text collate "C" not null references scim_users (id) on delete cascade,
  primary key (group_id, user_id)
);
create index scim_group_members_user_idx on scim_group_members (user_id);

-- An owner's mapping of a provider group to a role: matched against a SCIM group's display name
-- or external id, and against the values of the groups claim at a single sign-on.
create table role_mappings (
  brand_id text collate "C" not null references brands (id),
  group_key text not null check (length(group_key) between 1 and 256),
  role text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz not null default now(),
  primary key (brand_id, group_key)
);

-- The provider's last requests, for the Provisioning page (bounded per brand by the service).
create table scim_requests (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  token_name text not null,
  method text not null,
  path text not null,
  status integer not null,
  summary text not null default '',
  at timestamptz not null default now()
);
create index scim_requests_brand_idx on scim_requests (brand_id, at desc, id desc);

-- Who manages a membership: null, the brand's owners (invitations); 'scim' or 'sso' (just in
-- time), the brand's identity provider: its role then follows the provider's groups.
alter table brand_members add column managed_by text check (managed_by in ('scim', 'sso'));

alter table brands
  -- just-in-time membership at a single sign-on, and the claim that carries the groups
  add column jit_enabled boolean not null default false,
  add column jit_groups_claim text not null default 'groups'
    check (jit_groups_claim ~ '^[A-Za-z0-9_:./-]{1,100}$'),
  -- revoke the API keys a deprovisioned person created (off: they keep working; owners decide)
  add column revoke_keys_on_deprovision boolean not null default false;
