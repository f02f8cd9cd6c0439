-- An event the broker can never take (its message over Kafka's message.max.bytes) is set aside
-- in the outbox, so the rows behind it are published and it stays for an operator to mend:
-- `set_aside_at` and the broker's answer in `set_aside_reason`. The relay claims only rows
-- neither published nor set aside; an operator who mends the row clears `set_aside_at` and the
-- relay publishes it (docs/operating.md, BrandRecordsOutboxEventsSetAside). The partition keeper
-- keeps a day holding one (unpublished), so nothing accepted is lost. Expand only: the previous
-- release ignores the columns (and retries such a row forever, as before).
alter table outbox
  add column set_aside_at timestamptz,
  add column set_aside_reason text;
-- The set-aside gauge's count over its own rows only (none in steady state).
create index if not exists outbox_set_aside_idx on outbox (seq) where set_aside_at is not null;
