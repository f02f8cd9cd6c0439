-- Issue 63: API keys bound to networks, and a brand-wide key policy. Expand only
-- (docs/internals.md "Migrations"): new columns with defaults the previous release ignores.

-- The networks a key's requests may come from, canonical CIDRs (packages/shared/src/keys/
-- networks.ts writes them; a single address without its /32 or /128); empty: any network. The
-- gateway caches them with the key's identity and checks each request's client address.
alter table api_keys
  add column allowed_networks text[] not null default '{}'
    check (cardinality(allowed_networks) <= 32);

-- The brand's key policy: every new key (created or rolled) must have allowed networks.
alter table brands add column require_key_networks boolean not null default false;

-- The client address of a refused or failed request, as the gateway answered it (behind a
-- proxy its TRUST_PROXY trusts, the client's): where a refused key came from.
alter table request_log
  add column client_address text not null default '' check (length(client_address) <= 64);
