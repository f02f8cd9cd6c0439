-- An audit entry the trail refuses on its own is set aside in the outbox itself, so it stays
-- aside across a restart and a rollout and any number of them can be (the relay kept them in
-- memory: found again by every new process at a few calls' cost, and at 10,000 a relay stopped
-- setting aside and stalled on the next until a restart). The relay hands on only the rows not
-- set aside, oldest first; an operator who mends an entry clears `set_aside_at` and the relay
-- retries it (docs/operating.md, BrandRecordsAuditEntriesSetAside). Expand only: the previous
-- release ignores the columns (it re-isolates such an entry in memory, as before).
alter table audit_outbox
  add column set_aside_at timestamptz,
  add column set_aside_reason text;
-- The relay's read (the oldest rows not set aside) and the set-aside gauge's count, each over
-- its own rows only: an outbox is near empty in steady state, so both build in moments.
create index if not exists audit_outbox_waiting on audit_outbox (id) where set_aside_at is null;
create index if not exists audit_outbox_set_aside on audit_outbox (id) where set_aside_at is not null;
