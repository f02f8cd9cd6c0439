-- Each receiver's pending deliveries in due order: the claim walks the receivers that have
-- pending deliveries (a skip scan of this index) and takes each one's first few due rows,
-- so a claim costs about the same whatever the backlog. Before, it ranked every due
-- delivery per receiver on each claim: 16 ms with 10,000 pending, and a busy worker claims
-- whenever a slot frees (BENCHMARKS.md, S6).
create index deliveries_pending_receiver on deliveries (receiver_id, next_attempt_at, id)
  where status = 'pending';
