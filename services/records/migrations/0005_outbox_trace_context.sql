-- The W3C trace context (issue 11) of the business change that wrote an outbox row: the
-- relay's publish span continues that trace, so one business event is one trace from the
-- admin RPC through Kafka to the receiver's request. Null when the change was not traced
-- (tracing off) and for rows written before this migration: their publish span starts a
-- trace of its own.
alter table outbox add column traceparent text, add column tracestate text;
