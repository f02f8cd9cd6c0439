import { propagation, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { EventType } from '@brand/proto/events/v1';
import { BUSINESS_EVENT_CONTENT_TYPE, decodeBusinessEvent } from '@brand/shared/kafka';
import type { OutboxRow } from './outboxRepo';
import { startPublishing, toKafkaMessage } from './outboxMessages';

const row = (overrides: Partial<OutboxRow> = {}): OutboxRow => ({
  id: 'evt_0123456789abcdefghij',
  brand_id: 'br_abc',
  type: 'payout.paid',
  payload: '{"resource":"payouts","id":"po_1","status":"paid"}',
  created_at: '2026-01-02T03:04:05.123456Z',
  traceparent: null,
  tracestate: null,
  ...overrides,
});

describe('toKafkaMessage', () => {
  it('keys by brand and carries the envelope of events.proto', () => {
    const message = toKafkaMessage(row());
    expect(message.key).toBe('br_abc');
    expect(message.headers).toEqual({ 'content-type': BUSINESS_EVENT_CONTENT_TYPE });
    expect(decodeBusinessEvent(message.value as Buffer)).toEqual({
      id: 'evt_0123456789abcdefghij',
      type: EventType.EVENT_TYPE_PAYOUT_PAID,
      brand_id: 'br_abc',
      created_at: '2026-01-02T03:04:05.123456Z',
      object_json: row().payload,
      producer: 'records',
    });
  });
});

describe('startPublishing', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });

  it('adds no trace headers while tracing is off', () => {
    const batch = startPublishing(
      [row({ traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` })],
      't',
    );
    expect(batch.messages[0]!.headers).toEqual({ 'content-type': BUSINESS_EVENT_CONTENT_TYPE });
    batch.end();
  });

  describe('with tracing on', () => {
    beforeAll(() => {
      trace.setGlobalTracerProvider(provider);
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    });
    afterAll(async () => {
      trace.disable();
      propagation.disable();
      await provider.shutdown();
    });

    it("gives each message its own row's trace, through a PRODUCER span per row", () => {
      const traceA = '1'.repeat(32);
      const traceB = '2'.repeat(32);
      const rows = [
        row({ id: 'evt_a', traceparent: `00-${traceA}-${'a'.repeat(16)}-01`, tracestate: 'v=1' }),
        row({ id: 'evt_b', traceparent: `00-${traceB}-${'b'.repeat(16)}-01` }),
        row({ id: 'evt_c' }),
      ];
      const batch = startPublishing(rows, 'business-events');
      batch.end();

      const spans = exporter.getFinishedSpans();
      expect(spans).toHaveLength(3);
      const headers = batch.messages.map((m) => m.headers as Record<string, string>);
      spans.forEach((span, i) => {
        expect(span.kind).toBe(SpanKind.PRODUCER);
        expect(span.name).toBe('send business-events');
        expect(span.attributes['messaging.message.id']).toBe(rows[i]!.id);
        // the message carries this row's publish span, nothing else
        expect(headers[i]!.traceparent).toBe(
          `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
        );
      });
      // the publish spans continue the stored contexts (the business changes' traces)
      expect(spans[0]!.spanContext().traceId).toBe(traceA);
      expect(spans[0]!.parentSpanContext?.spanId).toBe('a'.repeat(16));
      expect(headers[0]!.tracestate).toBe('v=1');
      expect(spans[1]!.spanContext().traceId).toBe(traceB);
      expect(spans[1]!.parentSpanContext?.spanId).toBe('b'.repeat(16));
      expect(headers[1]!.tracestate).toBeUndefined();
      // a row with no stored context starts a trace of its own
      expect(spans[2]!.parentSpanContext).toBeUndefined();
      expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(3);
    });

    it('marks every span of a failed send as failed', () => {
      exporter.reset();
      const batch = startPublishing([row(), row({ id: 'evt_2' })], 't');
      batch.end(new Error('broker gone'));
      expect(exporter.getFinishedSpans().map((s) => s.status.message)).toEqual([
        'broker gone',
        'broker gone',
      ]);
    });
  });
});
