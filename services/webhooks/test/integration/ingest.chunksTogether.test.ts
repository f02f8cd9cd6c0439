import type pg from 'pg';
import type { KafkaMessage } from 'kafkajs';
import { BusinessEvent, EventType } from '@brand/proto/events/v1';
import { encodeBusinessEvent } from '@brand/shared/kafka';
import { createLogger } from '@brand/shared/logger';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { decodeChunk, storeChunks } from '../../src/ingest/chunkStore';
import { webhooksPool } from './statementFixtures';

// The consumer stores the chunks of several partitions that arrive together in ONE
// transaction (consumer.ts, db/groupCommit.ts): over thousands of brands each Kafka fetch held
// one small batch per partition, and storing them one after another made a busy receiver's
// events wait behind the others (S10, BENCHMARKS.md). What each partition then does with its
// chunk (feed the worker, publish its brands' feed versions, commit its offset) needs that
// chunk's own share of the transaction: its deliveries and its brands' versions, no other's.

let db: TestDatabase;
let pool: pg.Pool;
const log = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  db = await createTestDatabase();
  pool = webhooksPool(db);
  for (const [id, brand] of [
    ['rcv_chunk_a', 'br_chunk_a'],
    ['rcv_chunk_b1', 'br_chunk_b'],
    ['rcv_chunk_b2', 'br_chunk_b'],
  ])
    await pool.query(
      `insert into receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by, created_at)
       values ($1, $2, 'https://receiver.example/hook', 'chunks', '{payout.paid}', '\\x00', 'k1', 'test', now() - interval '1 day')`,
      [id, brand],
    );
});
afterAll(async () => {
  await pool?.end();
  await db?.close();
});

let offset = 0;
/** Each event's created_at: a redelivered message carries its event's, as Kafka keeps it. */
const createdAt = new Map<string, string>();
/** A Kafka message carrying a payout.paid event of `brand`. */
function message(id: string, brand: string): KafkaMessage {
  if (!createdAt.has(id)) createdAt.set(id, new Date().toISOString());
  return {
    key: Buffer.from(brand),
    value: encodeBusinessEvent(
      BusinessEvent.fromPartial({
        id,
        type: EventType.EVENT_TYPE_PAYOUT_PAID,
        brand_id: brand,
        created_at: createdAt.get(id),
        object_json: JSON.stringify({ resource: 'payouts', id: `po_${id}`, status: 'paid' }),
        producer: 'records',
      }),
    ),
    offset: String(offset++),
    timestamp: '0',
    attributes: 0,
    headers: {},
  };
}

const source = (partition: number) => ({ topic: 'events', partition, groupId: 'test' });

describe('storing the chunks of several partitions together', () => {
  it("gives each chunk its own deliveries and its own brands' feed versions", async () => {
    const a = decodeChunk(
      source(0),
      [message('evt_chunkA1', 'br_chunk_a'), message('evt_chunkA2', 'br_chunk_a')],
      log,
    );
    const b = decodeChunk(
      source(1),
      [message('evt_chunkB1', 'br_chunk_b'), message('unreadable', 'br_chunk_b')].map((m, i) =>
        i === 1 ? { ...m, value: Buffer.from([0x0a, 0xff]) } : m,
      ),
      log,
    );
    expect(b.skipped).toEqual(['undecodable']);
    // each partition commits past its own chunk's last message, the skipped one included
    expect([a.nextOffset, b.nextOffset]).toEqual(['2', '4']);
    const counted: Array<{ ingested: number; duplicates: number }> = [];
    const [storedA, storedB] = await storeChunks(pool, [a, b], {
      chunkStored: (o) => counted.push({ ingested: o.ingested, duplicates: o.duplicates }),
    });

    expect(storedA!.deliveries.map((d) => [d.eventId, d.receiverId])).toEqual([
      ['evt_chunkA1', 'rcv_chunk_a'],
      ['evt_chunkA2', 'rcv_chunk_a'],
    ]);
    expect(storedA!.feedVersions).toEqual([{ brandId: 'br_chunk_a', version: '2' }]);
    expect(storedB!.deliveries.map((d) => [d.eventId, d.receiverId])).toEqual([
      ['evt_chunkB1', 'rcv_chunk_b1'],
      ['evt_chunkB1', 'rcv_chunk_b2'],
    ]);
    expect(storedB!.feedVersions).toEqual([{ brandId: 'br_chunk_b', version: '1' }]);
    expect(counted).toEqual([{ ingested: 3, duplicates: 0 }]);

    // all of it in the table, once
    const { rows } = await pool.query<{ n: string }>(
      `select count(*) as n from deliveries where brand_id in ('br_chunk_a', 'br_chunk_b')`,
    );
    expect(Number(rows[0]!.n)).toBe(4);
  });

  it('counts a redelivered chunk as duplicates that make no delivery and advance no version', async () => {
    const again = decodeChunk(source(0), [message('evt_chunkA1', 'br_chunk_a')], log);
    const fresh = decodeChunk(source(1), [message('evt_chunkB2', 'br_chunk_b')], log);
    const counted: Array<{ ingested: number; duplicates: number }> = [];
    const [storedAgain, storedFresh] = await storeChunks(pool, [again, fresh], {
      chunkStored: (o) => counted.push({ ingested: o.ingested, duplicates: o.duplicates }),
    });
    expect(storedAgain).toEqual({ deliveries: [], feedVersions: [] });
    expect(storedFresh!.deliveries).toHaveLength(2);
    expect(storedFresh!.feedVersions).toEqual([{ brandId: 'br_chunk_b', version: '2' }]);
    expect(counted).toEqual([{ ingested: 1, duplicates: 1 }]);
  });
});
