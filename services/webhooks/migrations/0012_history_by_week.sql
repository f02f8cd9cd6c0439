-- Delivery history by week (issue 36): events, deliveries, attempts and attempt details become
-- tables partitioned by the event's time, one partition per 7 UTC days (<table>_pYYYYMMDD,
-- after its first day) and a default partition that catches a row no week partition holds
-- (the keeper was down longer than it creates ahead), so ingest never fails for want of a
-- partition. Retention then drops a whole week of all four at once
-- (src/maintenance/historyPartitions.ts): no mass DELETE, no dead rows for vacuum. Before,
-- every event, delivery and attempt was kept for good. Weeks, not days: with 30 days kept,
-- about six partitions each, and the claim's scans that cannot prune by time (pending rows
-- of a receiver) visit each partition's index.
--
-- The partition key is the event's created_at everywhere (events.created_at, and event_at on
-- the others, copied from the event): a day of history is one partition of each table, and a
-- Kafka message delivered twice carries the same created_at, so the unique keys, which
-- PostgreSQL requires to hold the partition key, stay exact: (id, created_at) for events and
-- (event_id, receiver_id, event_at) for deliveries. Ids are random (119 bits): an id alone is
-- still unique. The hot path names event_at with every delivery id it writes (the claim
-- returns it), so each write touches one partition.
--
-- The history tables no longer reference each other by foreign key: a referenced partition
-- cannot be dropped while the key exists, and checking the references on a detach reads the
-- other table's rows. Deliveries are created with their event in one transaction, attempts
-- only for a claimed delivery, and a week goes from all four at once. Deliveries still
-- reference receivers (on delete cascade); removing a receiver removes its attempts with it
-- (receiverRepo.deleteReceiver).
alter table events rename to events_before_days;
alter table deliveries rename to deliveries_before_days;
alter table attempts rename to attempts_before_days;
alter table attempt_details rename to attempt_details_before_days;
alter table attempt_details_before_days drop constraint attempt_details_delivery_id_number_fkey;
alter table attempts_before_days drop constraint attempts_delivery_id_fkey;
alter table deliveries_before_days drop constraint deliveries_event_id_fkey;
alter table deliveries_before_days drop constraint deliveries_receiver_id_fkey;
alter table events_before_days drop constraint events_pkey;
alter table deliveries_before_days drop constraint deliveries_pkey;
alter table deliveries_before_days drop constraint deliveries_event_id_receiver_id_key;
alter table attempts_before_days drop constraint attempts_pkey;
alter table attempt_details_before_days drop constraint attempt_details_pkey;
drop index events_brand_record, deliveries_brand, deliveries_receiver, deliveries_failed_receiver,
  deliveries_pending_receiver, deliveries_waiting_receiver, attempt_details_recorded;

create table events (
  id text not null,
  brand_id text not null,
  type text not null,
  created_at timestamptz not null,
  object_json text not null,
  test boolean not null default false,
  producer text not null default '',
  received_at timestamptz not null default now(),
  traceparent text,
  tracestate text,
  record_id text,
  primary key (id, created_at)
) partition by range (created_at);
create index events_brand_record on events (brand_id, record_id) where record_id is not null;

create table deliveries (
  id text not null,
  event_id text not null,
  -- the event's created_at (the partition key) and type, copied: the delivery log reads
  -- deliveries alone, and a claim names the event's partition
  event_at timestamptz not null,
  event_type text not null,
  receiver_id text not null references receivers (id) on delete cascade,
  brand_id text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  round_start integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  test boolean not null default false,
  secret_version integer,
  caught_up boolean not null default false,
  primary key (id, event_at),
  unique (event_id, receiver_id, event_at)
) partition by range (event_at);
create index deliveries_brand on deliveries (brand_id, created_at desc, id desc);
create index deliveries_receiver on deliveries (receiver_id, created_at desc, id desc);
create index deliveries_failed_receiver on deliveries (receiver_id, created_at, id)
  where status = 'failed' and not test;
create index deliveries_pending_receiver on deliveries (receiver_id, next_attempt_at, id)
  where status = 'pending';
create index deliveries_waiting_receiver on deliveries (receiver_id, created_at, id)
  where status = 'pending' and not test;

create table attempts (
  delivery_id text not null,
  number integer not null,
  event_at timestamptz not null,
  started_at timestamptz not null,
  duration_ms integer not null,
  status_code integer,
  error_class text,
  excerpt text,
  error_message text,
  primary key (delivery_id, number, event_at)
) partition by range (event_at);

create table attempt_details (
  delivery_id text not null,
  number integer not null,
  event_at timestamptz not null,
  recorded_at timestamptz not null default now(),
  request_headers jsonb not null,
  response_headers jsonb not null,
  response_body text not null default '',
  response_body_truncated boolean not null default false,
  response_body_bytes bigint not null default -1,
  primary key (delivery_id, number, event_at)
) partition by range (event_at);

-- a default partition each, and a week partition (7 days from a multiple of 7 days since
-- 1970-01-01, as src/maintenance/historyPartitions.ts names them) for every week that has
-- history and for yesterday to a week ahead
do $$
declare
  t text;
  w date;
begin
  foreach t in array array['events', 'deliveries', 'attempts', 'attempt_details'] loop
    execute format('create table %I partition of %I default', t || '_default', t);
    for w in
      select distinct date '1970-01-01' + ((d - date '1970-01-01') / 7) * 7 from (
        select (created_at at time zone 'UTC')::date as d from events_before_days
        union
        select (now() at time zone 'UTC')::date + i from generate_series(-1, 7) as i
      ) days
    loop
      execute format(
        'create table %I partition of %I for values from (%L) to (%L)',
        t || '_p' || to_char(w, 'YYYYMMDD'), t,
        w::timestamp at time zone 'UTC',
        (w + 7)::timestamp at time zone 'UTC');
    end loop;
  end loop;
end
$$;

insert into events (id, brand_id, type, created_at, object_json, test, producer, received_at,
                    traceparent, tracestate, record_id)
select id, brand_id, type, created_at, object_json, test, producer, received_at, traceparent,
       tracestate, record_id
from events_before_days;

insert into deliveries (id, event_id, event_at, event_type, receiver_id, brand_id, status, attempts,
                        round_start, next_attempt_at, lease_until, last_status, last_error,
                        created_at, completed_at, test, secret_version, caught_up)
select d.id, d.event_id, e.created_at, e.type, d.receiver_id, d.brand_id, d.status, d.attempts,
       d.round_start, d.next_attempt_at, d.lease_until, d.last_status, d.last_error,
       d.created_at, d.completed_at, d.test, d.secret_version, d.caught_up
from deliveries_before_days d join events_before_days e on e.id = d.event_id;

insert into attempts (delivery_id, number, event_at, started_at, duration_ms, status_code,
                      error_class, excerpt, error_message)
select a.delivery_id, a.number, e.created_at, a.started_at, a.duration_ms, a.status_code,
       a.error_class, a.excerpt, a.error_message
from attempts_before_days a
join deliveries_before_days d on d.id = a.delivery_id
join events_before_days e on e.id = d.event_id;

insert into attempt_details (delivery_id, number, event_at, recorded_at, request_headers,
                             response_headers, response_body, response_body_truncated,
                             response_body_bytes)
select x.delivery_id, x.number, e.created_at, x.recorded_at, x.request_headers,
       x.response_headers, x.response_body, x.response_body_truncated, x.response_body_bytes
from attempt_details_before_days x
join deliveries_before_days d on d.id = x.delivery_id
join events_before_days e on e.id = d.event_id;

drop table attempt_details_before_days, attempts_before_days, deliveries_before_days,
  events_before_days;
