-- Issue 63: the audit trail leaves by itself. Every activity row and every refused or failed
-- request of the request log is copied, by a trigger in the transaction that writes it, into an
-- outbox that the audit relay (@brand/shared/audit) hands to the webhooks service in order, which
-- numbers each brand's entries, serves them to the API (GET /api/v1/audit-log) and delivers them
-- to the brand's audit streams. A trigger, so every writer counts (insertActivity, the SQL of a
-- statement, a migration), and the copy commits or rolls back with the row. Expand only.

-- What the relay hands over: the entry's stable id ("act_..." or "rql_<request log id>"), its
-- brand and kind, and the row as the trail shows it (times as RFC 3339 UTC with microseconds).
-- Rows leave once the webhooks service stored them; the relay deletes what no one took for 7
-- days (a deployment without the webhooks service).
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

-- A refused or failed request, with its key's display prefix (never the key).
create function audit_outbox_request() returns trigger language plpgsql as $$
begin
  insert into audit_outbox (entry_id, brand_id, kind, row_json)
  values ('rql_' || new.id, new.brand_id, 'request', jsonb_build_object(
    'created_at', to_char(new.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'method', new.method,
    'path', new.path,
    'status', new.status,
    'error_code', new.error_code,
    'request_id', new.request_id,
    'key_id', coalesce(new.key_id, ''),
    'key_prefix', coalesce((select k.prefix from api_keys k where k.id = new.key_id), ''),
    'surface', new.surface,
    'client_address', new.client_address));
  return null;
end
$$;
create trigger request_log_to_audit_outbox after insert on request_log
  for each row execute function audit_outbox_request();

-- The trail before this release: every activity entry (kept for as long as the brand exists) and
-- the request log's last 7 days, oldest first, so the API's audit log starts complete.
insert into audit_outbox (entry_id, brand_id, kind, row_json)
select id, brand_id, 'activity', jsonb_build_object(
    'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'action', action, 'actor_member_id', actor_member_id, 'actor_email', actor_email,
    'subject_id', subject_id, 'summary', summary, 'client_address', client_address,
    'user_agent', user_agent)
from activity order by created_at, id;
insert into audit_outbox (entry_id, brand_id, kind, row_json)
select 'rql_' || l.id, l.brand_id, 'request', jsonb_build_object(
    'created_at', to_char(l.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'method', l.method, 'path', l.path, 'status', l.status, 'error_code', l.error_code,
    'request_id', l.request_id, 'key_id', coalesce(l.key_id, ''),
    'key_prefix', coalesce(k.prefix, ''), 'surface', l.surface, 'client_address', l.client_address)
from request_log l left join api_keys k on k.id = l.key_id order by l.at, l.id;
