-- Issue 59: a person belongs to a brand only by their own consent, and nothing one brand does
-- reaches another. Expand only (docs/internals.md "Migrations"): every column and table here is
-- new, and the previous release's code reads and writes none of them.

-- An owner's invitation is pending until the invited person accepts it: it grants nothing, so it
-- lives apart from brand_members, which every check of standing reads. outcome is set once, by
-- the statement that answers it; a pending invitation past expires_at is expired (and is closed
-- as such when the brand invites the address again).
create table member_invitations (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  email text not null check (email = lower(email)),
  role text not null check (role in ('owner', 'admin', 'member')),
  -- who invited: a member of the brand, or an operator ('' member id)
  invited_by_member_id text not null default '',
  invited_by_email text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- the SHA-256 of the newest link mailed for it; minted when the mail is claimed, so no raw
  -- token is ever stored, and a mail re-sent after a failure ends the unsent one's link
  token_hash bytea unique check (length(token_hash) = 32),
  answered_at timestamptz,
  outcome text check (outcome in ('accepted', 'declined', 'withdrawn', 'expired')),
  check ((outcome is null) = (answered_at is null))
);
-- One open invitation per brand and address; the person's own list reads by address.
create unique index member_invitations_open_idx on member_invitations (brand_id, email)
  where outcome is null;
create index member_invitations_email_idx on member_invitations (email) where outcome is null;
-- The bound on invitations one brand sends one address in a day reads these.
create index member_invitations_sent_idx on member_invitations (brand_id, email, created_at);

-- Mail records asks the console to send for a brand's members (the receiver notices' pattern):
-- an invitation to the invited address, and notices to a brand's owners (a new identity
-- provider, a verified domain whose DNS proof went missing). A row is leased by a claim and
-- deleted when the console confirms the mail was sent, so nothing accepted is lost to a console
-- that dies or a mail server that is down.
create table member_mails (
  id text collate "C" primary key,
  kind text not null
    check (kind in ('invitation', 'sso_provider_set', 'domain_proof_missing', 'domain_proof_failed')),
  email text not null check (email = lower(email)),
  brand_id text collate "C" not null references brands (id),
  invitation_id text collate "C" references member_invitations (id),
  -- what the mail says beyond its kind (the issuer and who set it; the domain and its deadline)
  details jsonb not null default '{}',
  created_at timestamptz not null default now(),
  claimed_until timestamptz
);
create index member_mails_created_idx on member_mails (created_at, id);

-- Who a session has acted for (issue 59 part 3): a sign-in is recorded at a brand when a session
-- first opens it, not at every brand of the address; a sign-out at the brands it opened.
-- refused_brand_ids: brands whose sign-in policy refused the session, recorded once each.
alter table console_sessions
  add column acted_brand_ids text[] not null default '{}',
  add column refused_brand_ids text[] not null default '{}';

-- The last time the member used this brand (a session acting there), and how that session was
-- opened: what the members page shows. last_signed_in_at, written at every sign-in on every
-- membership of the address, is no longer written (dropped a release later: expand, contract).
alter table brand_members
  add column last_used_at timestamptz,
  add column last_used_method text check (last_used_method in ('link', 'passkey', 'sso'));

-- When the connection's provider (its issuer or client id) was last set: requiring single
-- sign-on waits a day after it, with every owner mailed (issue 59 part 4). Existing
-- connections count as set when they were created.
alter table sso_connections add column provider_set_at timestamptz;
update sso_connections set provider_set_at = created_at;
alter table sso_connections alter column provider_set_at set not null,
  alter column provider_set_at set default now();

-- Verified domains are checked again on a schedule (issue 59 part 6): when the proof was last
-- found, since when it has been missing (null while it is found), and on how many checks in a
-- row it was missing.
alter table sso_domains
  add column proof_seen_at timestamptz,
  add column proof_missing_since timestamptz,
  add column missing_checks integer not null default 0;
update sso_domains set proof_seen_at = verified_at where state = 'verified';
create index sso_domains_recheck_idx on sso_domains (checked_at) where state = 'verified';
