-- The webhooks service's tables (schema "webhooks"). Forward-only.

-- A brand's HTTPS endpoint. The signing secret is stored only encrypted (AES-256-GCM,
-- secret_key_id names the WEBHOOK_SECRET_KEY that sealed it, for rotation).
create table receivers (
  id text primary key,
  brand_id text not null,
  url text not null,
  label text not null,
  events text[] not null,
  enabled boolean not null default true,
  disabled_reason text,
  secret_ciphertext bytea not null,
  secret_key_id text not null,
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_status integer,
  last_delivery_at timestamptz,
  -- consecutive failed attempts since the last 2xx (test deliveries never count)
  failure_count integer not null default 0,
  -- the first failure since the last 2xx: 5 days later the receiver is disabled
  failing_since timestamptz
);
create index receivers_brand on receivers (brand_id, created_at desc, id desc);

-- One business event as consumed from Kafka (or a test event); the id deduplicates
-- redelivered messages.
create table events (
  id text primary key,
  brand_id text not null,
  type text not null,
  created_at timestamptz not null,
  object_json text not null,
  test boolean not null default false,
  producer text not null default '',
  received_at timestamptz not null default now()
);

-- One event for one receiver. Workers claim due rows with FOR UPDATE SKIP LOCKED and a
-- lease; an expired lease is claimable again, so a killed worker loses nothing.
create table deliveries (
  id text primary key,
  event_id text not null references events (id),
  receiver_id text not null references receivers (id) on delete cascade,
  brand_id text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  -- attempts made before the current round (a resend starts a fresh schedule)
  round_start integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  unique (event_id, receiver_id)
);
create index deliveries_due on deliveries (next_attempt_at) where status = 'pending';
create index deliveries_receiver on deliveries (receiver_id, created_at desc, id desc);
create index deliveries_brand on deliveries (brand_id, created_at desc, id desc);

-- Every HTTP attempt: status, duration, error class, a short excerpt (never the full body).
create table attempts (
  delivery_id text not null references deliveries (id) on delete cascade,
  number integer not null,
  started_at timestamptz not null,
  duration_ms integer not null,
  status_code integer,
  error_class text,
  excerpt text,
  primary key (delivery_id, number)
);
