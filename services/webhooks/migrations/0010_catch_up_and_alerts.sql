-- Catch-up after an outage and failing alerts (issue 34, docs/webhooks.md "Receivers on day 2").

-- A receiver's deliveries not yet delivered, oldest first: what Recover since takes besides
-- the failed ones, what a receiver answering 2xx again makes due, and what its page counts
-- ("29 waiting, the oldest from 12:03") with a bounded read. It replaces deliveries_due: the
-- one query that used it (the /metrics depth by state) reads every pending delivery either
-- way, and deliveries_pending_receiver serves it as well.
drop index deliveries_due;
create index deliveries_waiting_receiver on deliveries (receiver_id, created_at, id)
  where status = 'pending' and not test;

-- A recovery's result in parts: failed deliveries re-queued, and waiting ones made due now.
alter table recoveries
  add column requeued_failed integer not null default 0,
  add column made_due integer not null default 0;

-- When the failing alert of the receiver's current run of failures was written (null: not
-- failing, or not for long enough yet): one alert per run, and the recovery notice when a
-- 2xx ends a run that alerted.
alter table receivers add column failing_alerted_at timestamptz;

-- Notices of three kinds: failing (a run of failures crossed the threshold), recovered (a 2xx
-- ended a run that alerted) and disabled (by the service, as before). failures: the run's
-- consecutive failed attempts when the notice was written.
alter table receiver_notices
  add column kind text not null default 'disabled'
    check (kind in ('failing', 'recovered', 'disabled')),
  add column failures integer not null default 0,
  alter column disabled_at drop not null;
