-- Issue 63: the audit trail leaves by itself. Every activity row is copied, by a trigger in the
-- transaction that writes it, into an outbox that the audit relay (@brand/shared/audit) hands to
-- the webhooks service in order (records' migration 0031 says the rest; the same outbox there).
-- Expand only.

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

-- The trail before this release, oldest first, so the API's audit log starts complete.
insert into audit_outbox (entry_id, brand_id, kind, row_json)
select id, brand_id, 'activity', jsonb_build_object(
    'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    'action', action, 'actor_member_id', actor_member_id, 'actor_email', actor_email,
    'subject_id', subject_id, 'summary', summary, 'client_address', client_address,
    'user_agent', user_agent)
from activity order by created_at, id;
