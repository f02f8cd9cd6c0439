-- Issue 37, "Your sessions": each console session keeps what the person needs to recognise it
-- (the browser's user agent and the client address it signed in from) and how it was opened,
-- and each member keeps when and how they last signed in, for owners. Stored at sign-in only;
-- the user agent is cut to 512 characters by the service.
alter table console_sessions
  add column user_agent text not null default '',
  add column client_address text not null default '',
  add column sign_in_method text not null default 'link'
    check (sign_in_method in ('link', 'passkey', 'sso'));

-- Written on every membership of the address when a session opens; null until then.
alter table brand_members
  add column last_signed_in_at timestamptz,
  add column last_sign_in_method text check (last_sign_in_method in ('link', 'passkey', 'sso'));
