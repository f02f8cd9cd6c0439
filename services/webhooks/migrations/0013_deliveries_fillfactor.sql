-- Room for HOT updates in the deliveries' pages (issue 36). A claim writes only the lease,
-- which no index holds; with every page packed full by the consumer's inserts the new row
-- version went to another page and every index of deliveries (seven) got an entry for it.
-- At fillfactor 80 the version stays in its page and the claim touches no index. Partitions
-- made from now on get the same setting (historyPartitions.ts, DELIVERIES); PostgreSQL keeps
-- storage parameters per partition (a partitioned parent takes none), so the existing ones
-- are set here. Pages written before keep their rows where they are; new pages leave room.
do $$
declare
  part regclass;
begin
  for part in select inhrelid::regclass from pg_inherits
              where inhparent = 'deliveries'::regclass loop
    execute format('alter table %s set (fillfactor = 80)', part);
  end loop;
end $$;
