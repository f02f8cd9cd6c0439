-- The console (the Developers area for a brand's members, issue 15): members can be removed,
-- members sign in by emailed one-time links and keep sessions, and an audit log of keys,
-- members and sign-ins.

-- A removed member keeps its row (keys they created still name them); every check of
-- standing reads only rows with removed_at null, and inviting the address again restores it.
alter table brand_members add column removed_at timestamptz;

-- One-time sign-in links: only the SHA-256 of the token is stored. used_at is set once, by
-- the statement that redeems the link, so a link cannot be spent twice.
create table sign_in_links (
  token_hash bytea primary key check (length(token_hash) = 32),
  email text not null check (email = lower(email)),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index sign_in_links_expires_idx on sign_in_links (expires_at);

-- Console sessions belong to an address (a person), not to one brand: the brand is chosen
-- per request and the member's standing on it is read each time.
create table console_sessions (
  id text collate "C" primary key,
  token_hash bytea not null unique check (length(token_hash) = 32),
  email text not null check (email = lower(email)),
  -- per-session secret the console derives its CSRF tokens from
  csrf_secret text not null,
  created_at timestamptz not null default now(),
  -- sliding idle expiry is measured from here
  last_seen_at timestamptz not null default now(),
  -- absolute expiry
  expires_at timestamptz not null,
  ended_at timestamptz
);
create index console_sessions_email_idx on console_sessions (email) where ended_at is null;

-- The audit log of the Developers area (packages/shared/src/activity): the same shape in
-- every service that keeps one.
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
