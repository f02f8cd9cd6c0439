-- The W3C trace context (issue 11) an event was stored in: the consumer's processing span,
-- which continues the trace the message's headers carried (the business change's, through
-- the outbox relay); for a Test delivery, the Test call's. Each delivery attempt's span is
-- its child, so one business event is one trace up to the receiver's request. Null when
-- nothing was traced (tracing off) and for events stored before this migration.
alter table events add column traceparent text, add column tracestate text;
