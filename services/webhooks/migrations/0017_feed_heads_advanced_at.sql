-- When each brand's events feed last advanced: the feed-version sweep (ingest/feedVersions.ts)
-- re-publishes the heads of the last minute to Redis, so a publish lost after a commit (a Redis
-- timeout, a failover, a crash before the SET) cannot leave followers answered 304 while newer
-- events exist. Expand only: the previous release's upsert leaves it at its default. No index:
-- the sweep reads the whole (one row per brand) table, and an index on a column every ingest
-- writes would cost each of those updates its HOT path.
alter table event_feed_heads add column advanced_at timestamptz not null default now();
