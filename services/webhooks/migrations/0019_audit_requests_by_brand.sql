-- The request-entry retention (audit/trailRetention.ts) reads each brand's expired request
-- entries apart: read across the whole trail by age (audit_entries_requests_received), it
-- stepped past every entry a stuck stream keeps, oldest of all, on every pass. A brand's request
-- entries by age: how the pass finds the brands that have any (a skip scan, one probe a brand)
-- and each one's oldest, and reads a brand's expired ones. By position, request entries only:
-- how it reads those at or below the brand's low point (the primary key holds the activity
-- entries too, kept for as long as the brand exists, which a read of it would step past).
-- Expand only: the previous release's pass reads audit_entries_requests_received, dropped once
-- no release does. Built inside the migration's transaction: they hold writes to the trail
-- while they build (2.9 s each per million request entries on 2 busy cores); on a large live
-- trail, create them concurrently by hand first under the same names, and this file skips them.
create index if not exists audit_entries_requests_by_brand_received
  on audit_entries (brand_id, received_at) where kind = 'request';
create index if not exists audit_entries_requests_by_brand_seq
  on audit_entries (brand_id, seq) where kind = 'request';
