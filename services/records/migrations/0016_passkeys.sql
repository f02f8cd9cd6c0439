-- Issue 37, passkeys: a person (an address, like a session) may register WebAuthn credentials
-- and sign in with one instead of an emailed link; an owner may require a passkey or SSO for
-- the brand.

-- Only the public key is stored; the private key never leaves the authenticator. The counter is
-- the authenticator's signature counter, checked to grow on every use (0 for authenticators that
-- keep none). user_handle is the random WebAuthn user id of the address: one per address, so an
-- authenticator keeps one passkey per address and brand console, not one per registration.
create table console_passkeys (
  id text collate "C" primary key,
  email text not null check (email = lower(email)),
  credential_id text collate "C" not null unique,
  public_key bytea not null,
  counter bigint not null default 0 check (counter >= 0),
  transports text[] not null default '{}',
  user_handle text collate "C" not null,
  name text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index console_passkeys_email_idx on console_passkeys (email);

-- WebAuthn challenges, single use and short-lived: finishing a ceremony deletes its challenge
-- in the statement that finds it, so a replayed response finds none. A registration's
-- challenge belongs to the session that asked for it; a sign-in's to nobody yet.
create table webauthn_challenges (
  challenge text collate "C" primary key,
  purpose text not null check (purpose in ('register', 'sign_in')),
  session_id text collate "C" not null default '',
  -- a registration's WebAuthn user id, the address's own if it has a passkey already
  user_handle text collate "C" not null default '',
  expires_at timestamptz not null
);
create index webauthn_challenges_expires_idx on webauthn_challenges (expires_at);

-- 'any': emailed links, passkeys and SSO all open the brand. 'passkey_or_sso': a session opened
-- by an emailed link is refused on this brand (it still opens the address's other brands).
alter table brands
  add column sign_in_policy text not null default 'any'
    check (sign_in_policy in ('any', 'passkey_or_sso'));
