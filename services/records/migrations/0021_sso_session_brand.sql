-- A session opened by single sign-on speaks for one brand and never for the address (issue 42:
-- it may not act on the address's passkeys or its sessions elsewhere). Records tells such a
-- session by sso_brand_id; this makes sure no row can be opened by SSO without the brand it is
-- confined to, nor carry a brand while claiming to prove the address (an emailed link, a
-- passkey). Every session written so far satisfies it (openSession sets both or neither).
alter table console_sessions
  add constraint console_sessions_sso_brand_check
    check ((sign_in_method = 'sso') = (sso_brand_id is not null));
