-- Brands, their members and their API keys. Ids use the "C" collation so their order is
-- bytewise and identical in indexes, comparisons and every locale.

create table brands (
  id text collate "C" primary key,
  name text not null check (length(name) between 1 and 200),
  plan text not null check (plan in ('free', 'plus', 'pro', 'enterprise')),
  verified boolean not null default false,
  created_at timestamptz not null default now()
);

create table brand_members (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  -- stored lower-cased; unique per brand
  email text not null check (email = lower(email)),
  role text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz not null default now(),
  unique (brand_id, email)
);

create table api_keys (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  name text not null check (length(name) between 1 and 100),
  environment text not null check (environment in ('live', 'test')),
  -- the first characters of the key, for recognising it in lists
  prefix text not null,
  -- SHA-256 of the full key; the key itself is never stored
  key_hash bytea not null unique check (length(key_hash) = 32),
  permissions text[] not null default '{}',
  created_at timestamptz not null default now(),
  created_by text collate "C" not null references brand_members (id),
  last_used_at timestamptz,
  -- a revoked key stays revoked: nothing ever clears this column
  revoked_at timestamptz,
  revoked_by text
);

create index api_keys_brand_created_idx on api_keys (brand_id, created_at desc);
