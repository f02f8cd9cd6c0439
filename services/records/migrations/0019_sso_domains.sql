-- Issue 42 part 2, verified domains: a brand's single sign-on admits addresses only at domains
-- the brand has proven it controls, by a DNS TXT record at
-- _brand-records-verification.<domain> holding "brand-records-verification=<token>", a random
-- token per brand and domain. A verified domain belongs to one brand at a time.

-- Every domain of a brand's connection, with its proof. The connection's allowed_domains stays
-- the owner's list (the form, its order); this table holds one row per domain in it, written in
-- the same transaction (ssoDomainRepo.ts), and goes with the connection.
create table sso_domains (
  brand_id text collate "C" not null references sso_connections (brand_id) on delete cascade,
  -- lowercase, as in allowed_domains
  domain text collate "C" not null,
  -- the value the brand publishes; random, never reused for another brand or domain
  token text collate "C" not null check (token ~ '^[A-Za-z0-9]{32,64}$'),
  -- pending: never checked; verified: the record was found (proof kept); failed: the last
  -- check did not find it (problem says why)
  state text not null default 'pending' check (state in ('pending', 'verified', 'failed')),
  checked_at timestamptz,
  verified_at timestamptz,
  problem text,
  created_at timestamptz not null default now(),
  primary key (brand_id, domain),
  check ((state = 'verified') = (verified_at is not null))
);

-- One brand at a time: a second brand's proof of a domain already verified is refused by the
-- database itself (23505), so two checks racing cannot both win.
create unique index sso_domains_verified_once on sso_domains (domain) where state = 'verified';

-- Existing connections: every allowed domain becomes pending, with a fresh token. Nothing is
-- verified without a proof, so single sign-on stops admitting anyone until an owner publishes
-- the record and presses "Verify now" (docs/operating.md "Upgrading to verified domains").
insert into sso_domains (brand_id, domain, token)
select c.brand_id, d.domain,
       replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')
  from sso_connections c
 cross join lateral unnest(c.allowed_domains) as d(domain)
on conflict do nothing;

-- A brand that required single sign-on would be locked out until then (links and passkeys
-- refused, SSO admitting nobody). It requires a passkey (or SSO) instead: a member signs in by
-- link, adds a first passkey on "Your passkeys" and signs in with it; an owner verifies the
-- domains, signs in with SSO and requires it again. Recorded in the brand's activity.
with relaxed as (
  update brands b set sign_in_policy = 'passkey_or_sso'
   where b.sign_in_policy = 'sso'
     and exists (select 1 from sso_connections c where c.brand_id = b.id)
  returning b.id
)
insert into activity (id, brand_id, action, actor_member_id, actor_email, subject_id, summary)
select 'act_' || replace(gen_random_uuid()::text, '-', ''), r.id, 'brand.sign_in_policy_changed',
       '', 'operator', r.id,
       'Members must sign in with a passkey (set by the upgrade to verified domains: verify the brand''s single sign-on domains, then require single sign-on again)'
  from relaxed r;
