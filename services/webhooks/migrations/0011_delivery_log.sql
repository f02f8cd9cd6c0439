-- The delivery log that scales, and catch-up at most once per round (issue 34).
--
-- caught_up: catch-up (a failing receiver's 2xx makes its waiting deliveries due now) has
-- sent this delivery early once in its current round. A receiver that takes some events and
-- refuses others would otherwise retry the refused ones after every 2xx and spend their ten
-- attempts in minutes instead of days; once caught up, a delivery that fails again keeps to
-- its schedule. A new round (resend, recover of a failed one) clears it.
alter table deliveries add column caught_up boolean not null default false;

-- Find deliveries by the record an event is about.
-- record_id is the id in the event's data.object ("sub_...", "po_..."), taken at ingest
-- (events/eventRepo.ts) and here for the events already stored; a find by it reads the
-- brand's few events of that record by this index, then their deliveries by the unique
-- (event_id, receiver_id) key.
alter table events add column record_id text;

-- The ingest path only stores JSON objects, but a migration must not stop on one odd row:
-- an object_json that is not JSON leaves record_id null.
create function pg_temp.record_id_of(object_json text) returns text language plpgsql as $$
declare id text;
begin
  id := object_json::jsonb ->> 'id';
  return case when length(id) <= 200 then id end;
exception when others then
  return null;
end $$;

update events set record_id = pg_temp.record_id_of(object_json) where object_json like '%"id"%';
create index events_brand_record on events (brand_id, record_id) where record_id is not null;
