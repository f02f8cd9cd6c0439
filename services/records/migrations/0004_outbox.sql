-- The transactional outbox of business events (issue 9). A business change inserts its
-- event here in the same transaction as the state change, so an event exists exactly when
-- the change committed; the relay (src/outbox/relay.ts) publishes unpublished rows to Kafka
-- in seq order and then sets published_at. Rows are kept after publishing, for audit.

create table outbox (
  -- the event id ("evt_..."), minted in the business transaction; consumers dedupe on it
  id text collate "C" primary key,
  -- insertion order: the relay publishes in this order, so one brand's events keep theirs
  seq bigint generated always as identity unique,
  brand_id text collate "C" not null references brands (id),
  type text not null
    check (type in ('submission.approved', 'submission.rejected', 'payout.paid', 'campaign.settled')),
  -- the record's public JSON (BusinessEvent.object_json); json keeps the written key order
  payload json not null,
  created_at timestamptz not null default now(),
  published_at timestamptz,
  -- failed publish attempts and the last failure, for operators
  attempts integer not null default 0,
  last_error text
);

-- The relay's claim reads only this: unpublished rows in order, however many were published.
create index outbox_unpublished_idx on outbox (seq) where published_at is null;

-- Wakes a relay LISTENing on "outbox" as soon as a change commits (notifications are sent
-- at commit and collapsed per transaction); the relay's poll interval covers a lost one.
create function outbox_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('outbox', '');
  return null;
end;
$$;

create trigger outbox_notify after insert on outbox
  for each statement execute function outbox_notify();
