-- API usage per key and the log of refused and failed requests (issue 26). The gateways
-- buffer both in memory and flush them here every few seconds (UsageService.RecordUsage);
-- counts are added (count = count + n), so any number of gateway instances add up.
--
-- Size: a row per (brand, key, slice, surface, outcome) that saw a request. Minute rows are
-- kept 24 hours, hour rows 7 days, log entries 7 days and at most 10,000 per brand; the
-- retention sweep in records deletes the rest in batches (plain DELETEs: autovacuum may be off).

-- Counts per minute. key_id is '' for requests with no key of the brand (no key, an unknown
-- key, attributed by the client address). outcome: 2xx, 304, 429, 5xx or 4xx:<error code>.
create table usage_minutes (
  brand_id text collate "C" not null,
  key_id text collate "C" not null,
  minute timestamptz not null,
  surface text not null check (surface in ('rest', 'assistant')),
  outcome text collate "C" not null check (length(outcome) between 3 and 72),
  count bigint not null check (count > 0),
  primary key (brand_id, minute, key_id, surface, outcome)
);
create index usage_minutes_minute_idx on usage_minutes (minute);

-- The same counts per hour, written by the same statement as the minute rows (no roll-up job).
create table usage_hours (
  brand_id text collate "C" not null,
  key_id text collate "C" not null,
  hour timestamptz not null,
  surface text not null check (surface in ('rest', 'assistant')),
  outcome text collate "C" not null check (length(outcome) between 3 and 72),
  count bigint not null check (count > 0),
  primary key (brand_id, hour, key_id, surface, outcome)
);
create index usage_hours_hour_idx on usage_hours (hour);

-- Refused and failed requests (every 4xx and 5xx). Never a key, a query string or a body:
-- the path is stored without its query and with key-shaped segments replaced. reason is the
-- owner-only cause of a 401 (revoked, expired, wrong_environment, other_brand, no_key,
-- unknown_key), shown with the key's revocation or expiry read at query time.
create table request_log (
  id bigserial primary key,
  brand_id text collate "C" not null,
  at timestamptz not null,
  key_id text collate "C",
  method text not null check (length(method) <= 16),
  path text not null check (length(path) <= 256),
  status smallint not null check (status between 400 and 599),
  error_code text not null check (length(error_code) <= 64),
  request_id text not null check (length(request_id) <= 128),
  surface text not null check (surface in ('rest', 'assistant')),
  reason text not null default '' check (
    reason in ('', 'revoked', 'expired', 'wrong_environment', 'other_brand', 'no_key', 'unknown_key')
  )
);
create index request_log_brand_at_idx on request_log (brand_id, at desc, id desc);
create index request_log_at_idx on request_log (at);

-- Flushes already stored, so a flush retried after its answer was lost counts once. Kept a day.
create table usage_batches (
  id text collate "C" primary key,
  received_at timestamptz not null default now()
);
create index usage_batches_received_idx on usage_batches (received_at);
