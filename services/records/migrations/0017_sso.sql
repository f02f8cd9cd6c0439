-- Issue 37 item 1, single sign-on per brand (OpenID Connect): an owner connects the brand's
-- identity provider; members of that brand then sign in through it (authorization code with
-- PKCE). An owner may require SSO for the brand.

-- One connection per brand. The client secret is sealed like receivers' signing secrets
-- (AES-256-GCM under WEBHOOK_SECRET_KEY, the brand id as associated data); client_secret_key_id
-- names the key that sealed it, so a key rotation can reseal it (resealSecrets.js).
create table sso_connections (
  brand_id text collate "C" primary key references brands (id),
  -- https://..., or http:// on a loopback host only (a local identity provider)
  issuer text not null,
  client_id text not null,
  client_secret_ciphertext bytea not null,
  client_secret_key_id text not null,
  -- lowercase domains; a member's verified email must be at one of them
  allowed_domains text[] not null check (cardinality(allowed_domains) between 1 and 20),
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Sign-ins started and not finished: single use (finishing deletes the row in the statement
-- that finds it, and only for the browser that started it: binding_hash is the SHA-256 of a
-- random cookie set on that browser), ten minutes at most. The PKCE verifier and the nonce
-- never leave records; the browser carries only the state.
create table sso_sign_ins (
  state text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  nonce text collate "C" not null,
  code_verifier text collate "C" not null,
  binding_hash bytea not null check (length(binding_hash) = 32),
  redirect_uri text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sso_sign_ins_expires_idx on sso_sign_ins (expires_at);

-- A session opened by SSO opens the brand whose identity provider proved the address, and no
-- other brand of that address (another brand has its own provider, or none).
alter table console_sessions add column sso_brand_id text collate "C";

-- 'sso': only a session opened by this brand's single sign-on opens it (no emailed link, no
-- passkey).
alter table brands drop constraint brands_sign_in_policy_check;
alter table brands
  add constraint brands_sign_in_policy_check
    check (sign_in_policy in ('any', 'passkey_or_sso', 'sso'));
