-- A passkey added to an address is mailed to that address (a review of 2026-11-30: whoever read
-- a member's mail could add one from an emailed link, which the member could not remove, and
-- nobody was told). Such a mail belongs to no brand: a passkey opens every brand of the address.
-- Expand only: the previous release's claim joins brands and so never takes a mail without one.
alter table member_mails alter column brand_id drop not null;
alter table member_mails drop constraint member_mails_kind_check;
alter table member_mails add constraint member_mails_kind_check
  check (kind in ('invitation', 'sso_provider_set', 'domain_proof_missing', 'domain_proof_failed',
                  'passkey_added'));
