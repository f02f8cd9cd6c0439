-- When each brand's events feed last advanced: the feed-version sweep (ingest/feedVersions.ts)
-- re-publishes the heads of the last minute to Redis, so a publish lost after a commit (a Redis
-- timeout, a failover, a crash before the SET) cannot leave followers answered 304 while newer
-- events exist. Expand only: the previous release's upsert leaves it as it was. No index:
-- the sweep reads the whole (one row per brand) table, and an index on a column every ingest
-- writes would cost each of those updates its HOT path.
-- Existing heads read as long advanced ('-infinity': the sweep has nothing of theirs to
-- repair, and does not republish every brand at once after the upgrade); new ones as now.
alter table event_feed_heads add column advanced_at timestamptz not null default '-infinity';
alter table event_feed_heads alter column advanced_at set default now();
