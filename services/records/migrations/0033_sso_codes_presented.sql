-- Authorization codes presented at the SSO callback, by their SHA-256: a code is spent here once.
-- Every brand's connection shares one callback address, so without this a hostile brand's
-- identity provider could send a member's browser to another brand's provider with its own
-- state, receive that provider's code in our token request, and present the same code under a
-- state the attacker started for the other brand in their own browser (a mix-up attack:
-- sso/ssoSignIn.ts). Rows go an hour after the code was seen (codes live minutes).
create table sso_codes_presented (
  code_hash bytea primary key,
  presented_at timestamptz not null default now()
);
create index sso_codes_presented_at_idx on sso_codes_presented (presented_at);
