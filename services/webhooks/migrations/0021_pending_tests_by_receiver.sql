-- The Test action's bound (deliveryService.ts, boundedPendingTests: at most ten Tests wait per
-- receiver or audit stream) counts a receiver's pending Test deliveries on every Test. Read
-- through deliveries_pending_receiver, that count stepped through the receiver's whole backlog of
-- pending business deliveries to find its Tests (a receiver that is down can hold hundreds of
-- thousands); this index holds pending Tests alone, a handful a receiver, in the order the
-- refusal names the oldest. Expand only. Built inside the migration's transaction (a partitioned
-- table's index cannot be built concurrently from its parent): it reads each week's partition
-- once, and writes to every partition it has read wait until the whole build commits: 0.4-0.55 s
-- per million deliveries on 2 busy cores (three builds over 1,000,000 rows, 482 MB, 1,000 of them
-- pending Tests): no delivery is queued, and no attempt recorded, for that long. On a large
-- history, create it by hand first under the same name (on only the parent, each partition's
-- concurrently, then attached), and this file skips it.
create index if not exists deliveries_pending_test
  on deliveries (receiver_id, created_at)
  where status = 'pending' and test;
