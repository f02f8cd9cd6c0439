-- Receivers on day 2 (issue 24): secret rotation, retry now and recovery, attempt detail,
-- health, and the notice sent when the service disables a receiver (docs/webhooks.md).

-- A pending rotation: the new secret sealed beside the current one (same AES-256-GCM box and
-- the same associated data, the receiver id, so the switch moves the ciphertext across
-- without opening it). secret_version counts switches; a Test signed with the new secret
-- names the version it was meant for. last_error is the current run of failures in words
-- (beside failing_since); disabled_by_service and disabled_at say who disabled it and when.
alter table receivers
  add column secret_version integer not null default 1,
  add column pending_secret_ciphertext bytea,
  add column pending_secret_key_id text,
  add column rotation_created_at timestamptz,
  add column rotation_created_by text,
  add column rotation_switch_at timestamptz,
  add column rotation_test_delivery_id text,
  add column last_error text,
  add column disabled_by_service boolean not null default false,
  add column disabled_at timestamptz,
  add constraint receivers_rotation_whole check (
    (pending_secret_ciphertext is null) = (pending_secret_key_id is null)
    and (pending_secret_ciphertext is null) = (rotation_created_at is null)
    and (rotation_switch_at is null or pending_secret_ciphertext is not null));
update receivers
   set disabled_at = updated_at,
       disabled_by_service = coalesce(disabled_reason, '') <> 'disabled by an owner'
 where not enabled;
-- The sweep finds scheduled switches that came due without reading every receiver.
create index receivers_switch_due on receivers (rotation_switch_at)
  where rotation_switch_at is not null;

-- test: copied from the event, so recovery and health need no join to events.
-- secret_version: set on a Test signed with a pending rotation's new secret (that version).
alter table deliveries
  add column test boolean not null default false,
  add column secret_version integer;
update deliveries d set test = true from events e where e.id = d.event_id and e.test;
-- Recovery counts and re-queues one receiver's failed deliveries in a window, oldest first.
create index deliveries_failed_receiver on deliveries (receiver_id, created_at, id)
  where status = 'failed' and not test;

-- The failure in words ("connection refused by 203.0.113.7:443"), kept with the attempt.
alter table attempts add column error_message text;

-- What an attempt sent and got back, kept for ATTEMPT_DETAIL_RETENTION_MS (14 days) and then
-- deleted by the sweep in bounded batches: the request headers (signature shortened), three
-- response headers and at most the first 4 KB of the response body.
create table attempt_details (
  delivery_id text not null,
  number integer not null,
  recorded_at timestamptz not null default now(),
  request_headers jsonb not null,
  response_headers jsonb not null,
  response_body text not null default '',
  response_body_truncated boolean not null default false,
  response_body_bytes bigint not null default -1,
  primary key (delivery_id, number),
  foreign key (delivery_id, number) references attempts (delivery_id, number) on delete cascade
);
create index attempt_details_recorded on attempt_details (recorded_at);

-- Receiver health, rolled up as attempts are recorded: one row per receiver and 5-minute
-- bucket (test deliveries excluded), so a 7-day view reads at most 2,016 rows whatever the
-- traffic. latency is a histogram of response times (bounds in health/latencyHistogram.ts);
-- failures counts failed attempts by class.
create table receiver_health (
  receiver_id text not null references receivers (id) on delete cascade,
  bucket_start timestamptz not null,
  attempts integer not null default 0,
  succeeded integer not null default 0,
  failures jsonb not null default '{}',
  latency integer[] not null,
  primary key (receiver_id, bucket_start)
);
create index receiver_health_bucket on receiver_health (bucket_start);

-- The outbox of "the service disabled your receiver" emails: written in the transaction that
-- disables it (410 or the failure window; never when a person disabled it), claimed by the
-- console's mailer under a lease (FOR UPDATE SKIP LOCKED), acknowledged once mailed.
create table receiver_notices (
  id text collate "C" primary key,
  brand_id text not null,
  receiver_id text not null references receivers (id) on delete cascade,
  receiver_label text not null,
  receiver_url text not null,
  disabled_at timestamptz not null,
  failing_since timestamptz,
  reason text not null,
  last_error text not null default '',
  created_at timestamptz not null default now(),
  lease_until timestamptz,
  claims integer not null default 0,
  sent_at timestamptz
);
create index receiver_notices_unsent on receiver_notices (created_at, id) where sent_at is null;
create index receiver_notices_created on receiver_notices (created_at);

-- RecoverDeliveries by request_id: a double click or a retry answers the first result and
-- re-queues nothing more.
create table recoveries (
  request_id uuid primary key,
  receiver_id text not null references receivers (id) on delete cascade,
  since timestamptz not null,
  requeued integer not null,
  remaining integer not null,
  created_at timestamptz not null default now()
);
create index recoveries_created on recoveries (created_at);
