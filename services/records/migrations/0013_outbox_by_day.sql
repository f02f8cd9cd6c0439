-- The outbox by day (issue 36): the transactional outbox becomes a table partitioned by
-- created_at, one partition per UTC day (outbox_pYYYYMMDD) and a default partition that
-- catches a row no day partition holds (the keeper was down longer than it creates ahead),
-- so a business change never fails for want of a partition. Published rows are kept for
-- OUTBOX_RETENTION_MS (7 days) and then go a whole day at a time: the keeper in records
-- (src/outbox/outboxPartitions.ts) creates the days ahead and drops the days past the
-- retention that hold no unpublished row. Before, every row was kept for good.
--
-- The primary key takes the partition key (PostgreSQL requires it): (id, created_at); event
-- ids are random, so an id is still unique. seq keeps the relay's order from a sequence (an
-- identity column cannot be declared on a partitioned table in PostgreSQL 15), continued
-- from the old table's. Existing rows move across in this migration, each day into its own
-- partition.
alter table outbox rename to outbox_before_days;
alter table outbox_before_days rename constraint outbox_pkey to outbox_before_days_pkey;
alter table outbox_before_days rename constraint outbox_seq_key to outbox_before_days_seq_key;
alter index outbox_unpublished_idx rename to outbox_before_days_unpublished_idx;
drop trigger outbox_notify on outbox_before_days;

create sequence outbox_seq;
select setval('outbox_seq', coalesce((select max(seq) from outbox_before_days), 0) + 1, false);

create table outbox (
  -- the event id ("evt_..."), minted in the business transaction; consumers dedupe on it
  id text collate "C" not null,
  -- insertion order: the relay publishes in this order, so one brand's events keep theirs
  seq bigint not null default nextval('outbox_seq'),
  brand_id text collate "C" not null references brands (id),
  type text not null
    check (type in ('submission.approved', 'submission.rejected', 'payout.paid', 'campaign.settled')),
  -- the record's public JSON (BusinessEvent.object_json); json keeps the written key order
  payload json not null,
  created_at timestamptz not null default now(),
  published_at timestamptz,
  -- failed publish attempts and the last failure, for operators
  attempts integer not null default 0,
  last_error text,
  traceparent text,
  tracestate text,
  primary key (id, created_at)
) partition by range (created_at);
alter sequence outbox_seq owned by outbox.seq;
create table outbox_default partition of outbox default;

-- The relay's claim reads only this: unpublished rows in order, however many were published.
create index outbox_unpublished_idx on outbox (seq) where published_at is null;

-- a day partition for every day that has rows, and for yesterday to a week ahead
do $$
declare
  d date;
begin
  for d in
    select distinct (created_at at time zone 'UTC')::date from outbox_before_days
    union
    select (now() at time zone 'UTC')::date + i from generate_series(-1, 7) as i
  loop
    execute format(
      'create table %I partition of outbox for values from (%L) to (%L)',
      'outbox_p' || to_char(d, 'YYYYMMDD'),
      d::timestamp at time zone 'UTC',
      (d + 1)::timestamp at time zone 'UTC');
  end loop;
end
$$;

insert into outbox (id, seq, brand_id, type, payload, created_at, published_at, attempts,
                    last_error, traceparent, tracestate)
select id, seq, brand_id, type, payload, created_at, published_at, attempts, last_error,
       traceparent, tracestate
from outbox_before_days;
drop table outbox_before_days;

create trigger outbox_notify after insert on outbox
  for each statement execute function outbox_notify();
