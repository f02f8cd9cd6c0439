-- Campaign plans. One row per (brand, request_id): the unique constraint is what makes
-- preparation exactly-once, whatever the gateways and retries do.
create table plans (
  id text primary key,
  brand_id text not null,
  request_id uuid not null,
  -- SHA-256 hex of the canonical JSON of the input: a retry with identical input replays,
  -- anything else under the same request_id is a conflict.
  input_hash text not null check (input_hash ~ '^[0-9a-f]{64}$'),
  status text not null default 'pending' check (status in ('pending', 'cancelled', 'completed')),
  campaign_type text not null check (campaign_type in ('blitz', 'ugc', 'package', 'affiliate')),
  title text not null,
  goal text not null,
  planned_for date not null,
  review_on date not null,
  -- Integer centavos (PHP).
  planning_budget_amount bigint not null check (planning_budget_amount > 0),
  summary text,
  brief text,
  requirements text[] not null default '{}',
  platforms text[] not null default '{}',
  -- Private to the brand: returned only by the admin RPCs.
  notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  cancelled_at timestamptz,
  completed_at timestamptz,
  constraint plans_brand_request_unique unique (brand_id, request_id)
);

-- Listing newest first, and counting a brand's pending plans for the limit.
create index plans_brand_created_idx on plans (brand_id, created_at desc, id desc);
create index plans_brand_pending_idx on plans (brand_id) where status = 'pending';
