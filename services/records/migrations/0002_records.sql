-- The six readable resources. Every table is read newest first per brand with keyset
-- pagination on (created_at desc, id desc), served by the matching *_page_idx index, so
-- a page costs the same at any depth. Money is integer centavos.

create table campaigns (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  title text not null,
  type text not null check (type in ('blitz', 'ugc', 'package', 'affiliate')),
  status text not null check (status in ('draft', 'active', 'paused', 'completed', 'settled')),
  budget_amount bigint not null check (budget_amount >= 0),
  spent_amount bigint not null default 0 check (spent_amount >= 0),
  currency text not null default 'PHP',
  platforms text[] not null default '{}',
  starts_on date not null,
  ends_on date not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  settled_at timestamptz,
  -- lets children reference (brand_id, id), so no record can point at another brand's campaign
  unique (brand_id, id)
);
create index campaigns_page_idx on campaigns (brand_id, created_at desc, id desc);

create table submissions (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  campaign_id text collate "C" not null,
  creator_handle text not null,
  platform text not null,
  content_url text not null,
  status text not null check (status in ('pending', 'approved', 'rejected')),
  rejection_reason text,
  views bigint not null default 0 check (views >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  reviewed_at timestamptz,
  foreign key (brand_id, campaign_id) references campaigns (brand_id, id),
  unique (brand_id, id)
);
create index submissions_page_idx on submissions (brand_id, created_at desc, id desc);

create table payouts (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  campaign_id text collate "C" not null,
  submission_id text collate "C",
  creator_handle text not null,
  amount bigint not null check (amount > 0),
  currency text not null default 'PHP',
  method text not null check (method in ('gcash', 'maya', 'bank_transfer')),
  status text not null check (status in ('pending', 'processing', 'paid', 'failed')),
  failure_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  paid_at timestamptz,
  foreign key (brand_id, campaign_id) references campaigns (brand_id, id),
  foreign key (brand_id, submission_id) references submissions (brand_id, id)
);
create index payouts_page_idx on payouts (brand_id, created_at desc, id desc);

create table deposits (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  campaign_id text collate "C",
  amount bigint not null check (amount > 0),
  currency text not null default 'PHP',
  method text not null check (method in ('gcash', 'maya', 'bank_transfer', 'card')),
  status text not null check (status in ('pending', 'confirmed', 'failed')),
  reference text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  confirmed_at timestamptz,
  foreign key (brand_id, campaign_id) references campaigns (brand_id, id)
);
create index deposits_page_idx on deposits (brand_id, created_at desc, id desc);

create table links (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  campaign_id text collate "C" not null,
  creator_handle text not null,
  destination_url text not null,
  short_url text not null,
  status text not null check (status in ('active', 'disabled')),
  clicks bigint not null default 0 check (clicks >= 0),
  conversions bigint not null default 0 check (conversions >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (brand_id, campaign_id) references campaigns (brand_id, id),
  unique (brand_id, id)
);
create index links_page_idx on links (brand_id, created_at desc, id desc);

create table conversions (
  id text collate "C" primary key,
  brand_id text collate "C" not null references brands (id),
  campaign_id text collate "C" not null,
  link_id text collate "C",
  event text not null check (event in ('sale', 'signup', 'install', 'lead')),
  value_amount bigint not null default 0 check (value_amount >= 0),
  currency text not null default 'PHP',
  order_reference text,
  occurred_at timestamptz not null,
  created_at timestamptz not null default now(),
  foreign key (brand_id, campaign_id) references campaigns (brand_id, id),
  foreign key (brand_id, link_id) references links (brand_id, id)
);
create index conversions_page_idx on conversions (brand_id, created_at desc, id desc);
