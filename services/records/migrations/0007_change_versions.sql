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
-- version: strictly increasing per row. It takes the greater of the row's next value and a
-- global sequence value: the sequence alone can go backwards per row (two transactions draw
-- 10 and 11, the one holding 11 commits first), which would let a later page carry an older
-- version; +1 alone would repeat numbers if a row were ever recreated.
create sequence change_version_seq;

create table change_versions (
  brand_id text collate "C" not null references brands (id),
  resource text collate "C" not null,
  version bigint not null,
  changed_at timestamptz not null,
  primary key (brand_id, resource)
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
  insert into change_versions as cv (brand_id, resource, version, changed_at)
  select b.brand_id, tg_argv[0], nextval('change_version_seq'), clock_timestamp()
  from (select distinct brand_id from changed_rows) b
  on conflict (brand_id, resource) do update
    set version = greatest(cv.version + 1, excluded.version),
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
      'insert into change_versions (brand_id, resource, version, changed_at)
       select brand_id, %1$L, nextval(''change_version_seq''), now() from %1$I group by brand_id', t);
  end loop;
end
$$;
