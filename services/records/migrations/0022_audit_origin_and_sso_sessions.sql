-- Issue 42 parts 5 and 6.
--
-- Every activity row carries the address and User-Agent of the request that made it, as the
-- console saw them (packages/shared/src/grpc/clientOrigin.ts); '' when no browser was
-- involved (an operator's CLI, a background job, the identity provider's back-channel).
alter table activity
  add column client_address text not null default '',
  add column user_agent text not null default '';

-- A session opened by a brand's single sign-on remembers who the provider said it was (the ID
-- token's sub and, when the provider sends one, its session id sid), so that the provider's
-- back-channel logout can end it; and the provider's tokens, sealed like client secrets
-- (the brand id bound in), so records can ask the provider again at an interval whether the
-- person is still there (SSO_RECHECK_INTERVAL_MS).
alter table console_sessions
  add column sso_subject text,
  add column sso_sid text,
  add column sso_tokens_ciphertext bytea,
  add column sso_tokens_key_id text,
  add column sso_checked_at timestamptz;
-- back-channel logout finds a brand's sessions by subject or sid; the re-check walks the
-- live SSO sessions oldest check first
create index console_sessions_sso_idx on console_sessions (sso_brand_id, sso_subject)
  where ended_at is null and sso_brand_id is not null;
