-- A change version per brand and resource (issue 18): advanced in the same transaction as
-- every insert, update or delete of a record of that resource, by statement triggers, so
-- every writer (business changes, seeding, fixtures, a person with psql) advances it. After
-- commit, records publishes it to Redis, where the gateway reads it in its rate-limit round
-- trip and answers a matching If-None-Match with 304 without asking for the page.
--
-- Numbered 0007 while 0006 belongs to the console work: the runner applies every file it has
-- not recorded, in name order, so either may land first (and a database that got 0007 first
-- still gets 0006 later). Nothing here depends on 0006.
--
-- The version of a (brand, resource) is the number of statements that wrote its records,
-- kept as the sum of 16 shard counters: a writing statement adds 1 to the shard of its
-- connection (pg_backend_pid() % 16). Each commit adds exactly what it wrote, so the sum grows
-- strictly in commit order and a snapshot's sum names exactly one state. One counter row would
-- do the same, but its row lock, held from the write to the commit's WAL flush, serialised every
-- write of a brand's resource (one business change per fsync, and a pool waiting on the lock);
-- with shards only writes on the same shard wait for each other. No transaction takes two
-- shards of one (brand, resource), so shards add no deadlock.
create table change_versions (
  brand_id text collate "C" not null references brands (id),
  resource text collate "C" not null,
  shard smallint not null,
  version bigint not null,
  changed_at timestamptz not null,
  primary key (brand_id, resource, shard)
);
-- The publisher's sweep re-publishes what changed in the last minute (a lost publish heals).
create index change_versions_changed_idx on change_versions (changed_at);

-- `set search_path from current` pins the migration's search_path (the records schema): a
-- writer connected with another search_path (a maintenance script naming records.submissions)
-- must still find change_versions.
create function bump_change_versions() returns trigger
language plpgsql
set search_path from current
as $$
begin
  insert into change_versions as cv (brand_id, resource, shard, version, changed_at)
  select b.brand_id, tg_argv[0], pg_backend_pid() % 16, 1, clock_timestamp()
  from (select distinct brand_id from changed_rows) b
  on conflict (brand_id, resource, shard) do update
    set version = cv.version + 1,
        changed_at = excluded.changed_at;
  return null;
end
$$;

-- One statement trigger per event (a transition table serves one event only): a bulk insert
-- of a thousand rows advances each brand's version once.
do $$
declare
  t text;
begin
  foreach t in array array['campaigns', 'submissions', 'payouts', 'deposits', 'conversions', 'links']
  loop
    execute format(
      'create trigger %1$s_version_insert after insert on %1$I referencing new table as changed_rows
         for each statement execute function bump_change_versions(%1$L)', t);
    execute format(
      'create trigger %1$s_version_update after update on %1$I referencing new table as changed_rows
         for each statement execute function bump_change_versions(%1$L)', t);
    execute format(
      'create trigger %1$s_version_delete after delete on %1$I referencing old table as changed_rows
         for each statement execute function bump_change_versions(%1$L)', t);
    -- records that exist already: their brand and resource start at a version
    execute format(
      'insert into change_versions (brand_id, resource, shard, version, changed_at)
       select brand_id, %1$L, 0, 1, now() from %1$I group by brand_id', t);
  end loop;
end
$$;
