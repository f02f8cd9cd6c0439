-- The events feed (issue 44, docs/api.md "Events"): every business event a brand's feed holds
-- gets a feed position, a per-brand number assigned when the consumer stores it. The brand's
-- row in event_feed_heads is upserted by the same statement that stores the events, so its
-- row lock is held until that transaction commits: a brand's positions are handed out in
-- commit order, and a follower reading "after position P" can never miss an event that
-- commits later with a smaller position (an event with an older created_at that arrives
-- late still gets the next position). Test events (the Test action's) are not in the feed.
--
-- expired_through is the greatest position retention has dropped for the brand: a cursor or
-- position at or below it may have lost the events that followed it (410 cursor_expired).
create table event_feed_heads (
  brand_id text primary key,
  last_seq bigint not null default 0,
  expired_through bigint not null default 0
);

alter table events add column feed_seq bigint;

-- the events already stored, numbered in the order they were received
with numbered as (
  select id, created_at,
    row_number() over (partition by brand_id order by received_at, created_at, id) as seq
  from events where not test
)
update events e set feed_seq = n.seq from numbered n
where e.id = n.id and e.created_at = n.created_at;

insert into event_feed_heads (brand_id, last_seq)
select brand_id, max(feed_seq) from events where feed_seq is not null group by brand_id;

-- both directions of the feed walk this index (a merge of the week partitions' indexes)
create index events_feed on events (brand_id, feed_seq) where feed_seq is not null;
