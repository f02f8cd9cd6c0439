import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { KafkaMessage } from 'kafkajs';
import { isValueRefused, withTransaction, type Pool } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';
import type { Logger } from '@brand/shared/logger';
import { continueTraceFromHeaders, traceContextOfSpan } from '@brand/shared/telemetry';
import type { ConsumerObserver, SkipReason } from './consumerMetrics';
import { toEventInput } from './eventInput';
import {
  insertDeliveries,
  insertEvents,
  type EventInput,
  type FeedVersion,
  type NewDelivery,
} from './eventRepo';

const tracer = trace.getTracer('webhooks.consumer');

/** Where a chunk came from: for its spans, its logs, and the offset committed after it. */
export interface ChunkSource {
  topic: string;
  partition: number;
  groupId: string;
}

/**
 * A chunk of one partition's batch, decoded, with a CONSUMER span ("process <topic>") per event
 * that continues the trace its message's headers carry: what `storeChunks` writes.
 */
export interface DecodedChunk {
  source: ChunkSource;
  /** The offset to commit once the chunk is stored: its last message's, plus one. */
  nextOffset: string;
  events: Array<{ event: EventInput; span: Span }>;
  skipped: SkipReason[];
}

/** Decodes a chunk; a message that cannot be an event is logged and skipped (toEventInput). */
export function decodeChunk(
  source: ChunkSource,
  messages: readonly KafkaMessage[],
  log: Logger,
): DecodedChunk {
  const chunk: DecodedChunk = {
    source,
    nextOffset: (BigInt(messages[messages.length - 1]!.offset) + 1n).toString(),
    events: [],
    skipped: [],
  };
  for (const message of messages) {
    const input = toEventInput(message);
    if ('skip' in input) {
      log.warn(
        { partition: source.partition, offset: message.offset, reason: input.skip },
        'skipped a message',
      );
      chunk.skipped.push(input.reason);
      continue;
    }
    const span = tracer.startSpan(
      `process ${source.topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'process',
          'messaging.operation.name': 'process',
          'messaging.destination.name': source.topic,
          'messaging.destination.partition.id': String(source.partition),
          'messaging.consumer.group.name': source.groupId,
          'messaging.kafka.offset': Number(message.offset),
          'messaging.message.id': input.id,
          'brand.event.type': input.type,
        },
      },
      continueTraceFromHeaders(message.headers),
    );
    chunk.events.push({ event: input, span });
  }
  return chunk;
}

/** What a transaction stored of one chunk: for the worker's feed and the events feed. */
export interface StoredChunk {
  deliveries: NewDelivery[];
  /** The feed versions of the chunk's brands (a brand's events are all in one partition). */
  feedVersions: FeedVersion[];
}

/**
 * Stores chunks, of one partition or of several, in ONE transaction of two statements,
 * whatever their number and size: the events (deduplicated on their ids: a redelivered message
 * is counted a duplicate and makes no delivery), then one delivery per subscribed, enabled
 * receiver of each new event's brand. Each event is stored in its span's context, so its
 * delivery attempts continue the trace (the caller ends the spans: `endSpans`). Returns what
 * was stored of each chunk, in order. Counted once committed, so a chunk rolled back and
 * replayed is counted once.
 */
export async function storeChunks(
  pool: Pool,
  chunks: readonly DecodedChunk[],
  observer?: ConsumerObserver,
): Promise<StoredChunk[]> {
  const events = chunks.flatMap((c) => c.events);
  const outcome = { ingested: 0, duplicates: 0, skipped: chunks.flatMap((c) => c.skipped) };
  let stored: StoredChunk[] = chunks.map(() => ({ deliveries: [], feedVersions: [] }));
  if (events.length > 0) {
    stored = await withTransaction(pool, async (db) => {
      outcome.ingested = outcome.duplicates = 0;
      const inserted = await insertEvents(
        db,
        events.map(({ event, span }) => ({ ...event, ...traceContextOfSpan(span) })),
      );
      const versions = new Map(inserted.feedVersions.map((v) => [v.brandId, v]));
      const taken = new Set<string>();
      const byChunk = chunks.map((chunk) => {
        const made: NewDelivery[] = [];
        const brands = new Set<string>();
        for (const { event, span } of chunk.events) {
          brands.add(event.brandId);
          const receivers = inserted.receivers.get(event.id);
          // seen before (or twice in this transaction): its deliveries exist
          if (!receivers || taken.has(event.id)) {
            span.setAttribute('brand.event.duplicate', true);
            outcome.duplicates++;
            continue;
          }
          taken.add(event.id);
          outcome.ingested++;
          for (const receiverId of receivers)
            made.push({
              id: newId('delivery'),
              eventId: event.id,
              eventAt: event.createdAt,
              eventType: event.type,
              receiverId,
              brandId: event.brandId,
            });
        }
        const feedVersions = [...brands].flatMap((b) => versions.get(b) ?? []);
        return { deliveries: made, feedVersions };
      });
      await insertDeliveries(
        db,
        byChunk.flatMap((c) => c.deliveries),
      );
      return byChunk;
    });
  }
  observer?.chunkStored(outcome);
  return stored;
}

/**
 * How many events the consumer may skip as refused by the database in a minute: more means a
 * fault of ours (a migration, a cast), not bad messages, and skipping them would lose events;
 * past it the chunk fails and its partition waits, loudly, until the fault is mended.
 */
export function refusalBudget(max = 100, windowMs = 60_000): { take(): boolean } {
  let taken: number[] = [];
  return {
    take() {
      const now = Date.now();
      taken = taken.filter((t) => now - t < windowMs);
      if (taken.length >= max) return false;
      taken.push(now);
      return true;
    },
  };
}

/**
 * Stores a chunk with `store`; when PostgreSQL refuses a value of it (isValueRefused: something
 * toEventInput's checks let through), stores its events one by one instead and skips, logged
 * at error level and counted `refused_by_database`, each one it refuses, while `budget` lasts.
 * Without this, one such message failed its chunk on every replay and held its partition, and
 * every brand on it, for good. Any other failure, or one past the budget, is thrown: the chunk
 * is replayed, nothing is skipped.
 */
export async function storeSkippingRefused(
  store: (chunk: DecodedChunk) => Promise<StoredChunk>,
  chunk: DecodedChunk,
  log: Logger,
  budget: { take(): boolean },
  observer?: ConsumerObserver,
): Promise<StoredChunk> {
  try {
    return await store(chunk);
  } catch (err) {
    if (!isValueRefused(err) || chunk.events.length === 0) throw err;
  }
  // the chunk's own skips are counted once, whatever becomes of its events
  if (chunk.skipped.length > 0)
    observer?.chunkStored({ ingested: 0, duplicates: 0, skipped: chunk.skipped });
  const all: StoredChunk = { deliveries: [], feedVersions: [] };
  for (const one of chunk.events) {
    try {
      const stored = await store({ ...chunk, events: [one], skipped: [] });
      all.deliveries.push(...stored.deliveries);
      all.feedVersions.push(...stored.feedVersions);
    } catch (err) {
      if (!isValueRefused(err)) throw err;
      const where = { partition: chunk.source.partition, eventId: one.event.id };
      if (!budget.take()) {
        log.error(
          { err, ...where },
          'the database refused more events than bad messages explain; the partition waits until that is mended',
        );
        throw err;
      }
      log.error(
        { err, ...where, brandId: one.event.brandId },
        'skipped an event the database refuses',
      );
      observer?.chunkStored({ ingested: 0, duplicates: 0, skipped: ['refused_by_database'] });
    }
  }
  return all;
}

/** Ends a chunk's spans once its fate is known: failed with `err`, or stored. */
export function endSpans(chunk: DecodedChunk, err?: unknown): void {
  for (const { span } of chunk.events) {
    if (err !== undefined) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}
