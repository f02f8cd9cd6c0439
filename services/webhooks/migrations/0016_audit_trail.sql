-- Issue 63: the audit trail leaves by itself (docs/console.md "Audit streams", docs/api.md "Audit
-- log"). Expand only: new tables, and new receivers columns whose defaults are what the previous
-- release's rows are (plain webhook receivers).

-- The webhooks service's own activity goes out as records' and plans' does (their migrations
-- 0031 and 0004): a trigger copies every row into an outbox, which the worker role's relay hands
-- to the trail below in order.
create table audit_outbox (
  id bigserial primary key,
  entry_id text collate "C" not null,
  brand_id text collate "C" not null,
  kind text not null check (kind in ('activity', 'request')),
  row_json jsonb not null,
  created_at timestamptz not null default now()
);
create index audit_outbox_created on audit_outbox (created_at);

create function audit_outbox_activity() returns trigger language plpgsql as $$
begin
  insert into audit_outbox (entry_id, brand_id, kind, row_json)
  values (new.id, new.brand_id, 'activity', jsonb_build_object(
    'created_at', to_char(new.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'action', new.action,
    'actor_member_id', new.actor_member_id,
    'actor_email', new.actor_email,
    'subject_id', new.subject_id,
    'summary', new.summary,
    'client_address', new.client_address,
    'user_agent', new.user_agent));
  return null;
end
$$;
create trigger activity_to_audit_outbox after insert on activity
  for each row execute function audit_outbox_activity();

insert into audit_outbox (entry_id, brand_id, kind, row_json)
select id, brand_id, 'activity', jsonb_build_object(
    'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'action', action, 'actor_member_id', actor_member_id, 'actor_email', actor_email,
    'subject_id', subject_id, 'summary', summary, 'client_address', client_address,
    'user_agent', user_agent)
from activity order by created_at, id;

-- The trail: every brand's audit entries from records, webhooks and plans, each numbered in its
-- brand (position), in the order they were stored. The brand's row in audit_heads is upserted by
-- the statement that stores entries (audit/ingestRepo.ts), so its lock is held until that
-- transaction commits: positions are handed out in commit order, and a reader "after position P"
-- never misses an entry that commits later with a smaller one (as the events feed's heads).
-- entry_json is the entry as streams and the API carry it, but for its position, which is put in
-- front when it is read ({"position":N,...}). Activity is kept for as long as the brand exists (as
-- in the services that wrote it); requests 7 days, and until every stream of the brand has them.
create table audit_heads (
  brand_id text collate "C" primary key,
  last_seq bigint not null default 0
);
create table audit_entries (
  brand_id text collate "C" not null,
  seq bigint not null,
  id text collate "C" not null,
  kind text not null check (kind in ('activity', 'request')),
  created_at timestamptz not null,
  received_at timestamptz not null default now(),
  entry_json text not null,
  primary key (brand_id, seq)
);
-- an entry handed over twice (a relay's retry after a lost answer) is stored once
create unique index audit_entries_id on audit_entries (id);
create index audit_entries_kind on audit_entries (brand_id, kind, seq);
create index audit_entries_requests_received on audit_entries (received_at) where kind = 'request';

-- Audit streams are receivers of another kind: the delivery engine's lanes, claims, retries,
-- notices, health and catch-up serve them as they serve webhook receivers. A stream never
-- subscribes to business events (events stays empty); its deliveries carry runs of its brand's
-- entries, one run at a time: stream_batch_id names the delivery in flight (pending), and the
-- next run starts after stream_delivered_through once it succeeds, so a destination gets each
-- brand's entries in order. The token or API key (Splunk, Datadog) or the signing secret (https)
-- is sealed in secret_ciphertext like a receiver's secret.
alter table receivers
  add column kind text not null default 'webhook'
    check (kind in ('webhook', 'https', 'splunk_hec', 'datadog')),
  add column stream_started_after bigint,
  add column stream_delivered_through bigint,
  add column stream_batch_id text,
  add column stream_batch_event_at timestamptz,
  add column stream_batch_through bigint,
  add column stream_options jsonb not null default '{}',
  add constraint receivers_stream_whole check (
    (kind = 'webhook') = (stream_delivered_through is null)
    and (stream_batch_id is null) = (stream_batch_through is null)
    and (stream_batch_id is null) = (stream_batch_event_at is null));
create index receivers_streams on receivers (brand_id) where kind <> 'webhook';
