// An outbox batch the broker refuses as too large no longer stops publishing for every brand.
// Real records process, PostgreSQL and the shared test broker; this file's topic takes messages
// of at most 200,000 bytes (max.message.bytes), below records' own bound on an event (512 KiB of
// record JSON, MAX_EVENT_OBJECT_BYTES), as a broker configured tighter than Kafka's default would.
//
// A: one event over the topic's limit (a campaign with a 300 KB title, settled) is set aside in
//    the outbox, with the broker's reason, counted and on /metrics; the other brand's event in the
//    same batch and the brand's own later events are published; readiness keeps saying Kafka is
//    ok; mending the row and clearing the mark publishes it (the runbook's way).
// B: 100 events of ~15 KB of one brand (1.5 MB in one record batch, no event too large): the batch
//    is split until the parts fit, every event goes out in its brand's order, and another brand's
//    later event (beyond the first batch) follows.
// C: a change whose event would be over records' bound is refused at the write.
import { Kafka, logLevel } from 'kafkajs';
import { scrapeMetric, makeRecords, startStack, waitFor, type Stack } from '@brand/testkit';
import { createEventTopic, TEST_KAFKA_BROKERS, type EventTopic } from './eventTopic';

const TOPIC_MAX_MESSAGE_BYTES = 200_000;

let stack: Stack;
let topic: EventTopic;

beforeAll(async () => {
  topic = await createEventTopic(3);
  const admin = new Kafka({
    clientId: 'records-oversized-test',
    brokers: TEST_KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: 2, // ConfigResourceTypes.TOPIC
          name: topic.topic,
          configEntries: [{ name: 'max.message.bytes', value: String(TOPIC_MAX_MESSAGE_BYTES) }],
        },
      ],
    });
  } finally {
    await admin.disconnect();
  }
  stack = await startStack({
    gateways: 0,
    recordsEnv: {
      KAFKA_BROKERS: TEST_KAFKA_BROKERS,
      BUSINESS_EVENTS_TOPIC: topic.topic,
      OUTBOX_POLL_MS: '60000',
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await topic?.close();
});

interface RowState {
  id: string;
  published: boolean;
  set_aside: boolean;
  set_aside_reason: string | null;
  attempts: number;
  last_error: string | null;
}

const rowsOf = async (ids: string[]): Promise<RowState[]> => {
  const { rows } = await stack.db.pool.query<RowState>(
    `select id, published_at is not null as published, set_aside_at is not null as set_aside,
       set_aside_reason, attempts, last_error
     from records.outbox where id = any($1::text[]) order by seq`,
    [ids],
  );
  return rows;
};

const onTopic = (id: string): number => topic.messages.filter((m) => m.event?.id === id).length;

const kafkaReadiness = async (): Promise<string | undefined> => {
  const ready = (await (await fetch(`${stack.records.opsUrl}/readyz`)).json()) as {
    checks: Record<string, string>;
  };
  return ready.checks.kafka;
};

describe('an outbox batch the broker refuses as too large', () => {
  it('sets one over-sized event aside and publishes every other (probe A)', async () => {
    const brandA = (await stack.admin.createBrand()).brand.id;
    const brandB = (await stack.admin.createBrand()).brand.id;
    const [campaign] = await makeRecords(stack.db.pool, brandA, 'campaigns', 1, () => ({
      status: 'completed',
      title: 'x'.repeat(300_000),
    }));
    const [subB] = await makeRecords(stack.db.pool, brandB, 'submissions', 1, () => ({
      status: 'pending',
    }));
    const subsA = await makeRecords(stack.db.pool, brandA, 'submissions', 1, () => ({
      status: 'pending',
    }));

    const big = (await stack.admin.records('settleCampaign', { campaign_id: campaign!.id }))
      .event_id;
    const small = (await stack.admin.records('approveSubmission', { submission_id: subB!.id }))
      .event_id;
    // the over-sized brand's own later event goes on too
    const laterA = (await stack.admin.records('approveSubmission', { submission_id: subsA[0]!.id }))
      .event_id;

    const readiness = new Set<string | undefined>();
    const published = await waitFor(
      async () => {
        readiness.add(await kafkaReadiness());
        const rows = await rowsOf([small, laterA]);
        return rows.length === 2 && rows.every((r) => r.published) ? rows : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200, what: "the other events' rows marked published" },
    );
    expect(published.map((r) => r.id)).toEqual([small, laterA]);
    await topic.waitForCount(2);
    await waitFor(() => onTopic(small) >= 1 && onTopic(laterA) >= 1, {
      what: 'both small events on the topic',
    });
    // the small event may go twice (it shared the refused request), never more
    expect(onTopic(small)).toBeLessThanOrEqual(2);

    const [aside] = await rowsOf([big]);
    expect(aside).toMatchObject({ id: big, published: false, set_aside: true });
    expect(aside!.set_aside_reason).toMatch(/larger than the max message size/);
    expect(aside!.attempts).toBe(1);
    expect(onTopic(big)).toBe(0);
    // a message too large is the broker's answer, not Kafka out of reach
    readiness.add(await kafkaReadiness());
    expect([...readiness]).toEqual(['ok']);

    expect(await scrapeMetric(stack.records.opsUrl, /^outbox_set_aside_events /)).toBe(1);
    expect(await scrapeMetric(stack.records.opsUrl, /^outbox_events_set_aside_total /)).toBe(1);
    // set aside, it no longer counts as waiting (BrandRecordsOutboxStalled stays quiet)
    expect(await scrapeMetric(stack.records.opsUrl, /^outbox_unpublished_events /)).toBe(0);

    // the runbook's mend: shorten the payload, clear the mark; the relay publishes it
    await stack.db.pool.query(
      `update records.outbox set payload = json_build_object('resource', 'campaigns', 'id', $2::text),
         set_aside_at = null, set_aside_reason = null
       where id = $1`,
      [big, campaign!.id],
    );
    await stack.db.pool.query(`notify outbox`);
    await waitFor(async () => (await rowsOf([big]))[0]?.published === true, {
      timeoutMs: 10_000,
      what: 'the mended event published',
    });
    await waitFor(() => onTopic(big) === 1, { what: 'the mended event on the topic' });
    expect(await scrapeMetric(stack.records.opsUrl, /^outbox_set_aside_events /)).toBe(0);
  });

  it('splits a batch too large as a whole until its parts fit (probe B)', async () => {
    const brandC = (await stack.admin.createBrand()).brand.id;
    const brandD = (await stack.admin.createBrand()).brand.id;
    const pad = 'y'.repeat(15_000);
    const idsC = Array.from(
      { length: 100 },
      (_, i) => `evt_probeB${brandC.replace(/[^A-Za-z0-9]/g, '')}n${i}`,
    );
    const idD = `evt_probeB${brandD.replace(/[^A-Za-z0-9]/g, '')}n0`;
    // one transaction: the relay's first claim is these 100 rows of brand C (one partition,
    // ~1.5 MB in one record batch), and D's row is the 101st
    const client = await stack.db.pool.connect();
    try {
      await client.query('begin');
      for (const [i, id] of idsC.entries())
        await client.query(
          `insert into records.outbox (id, brand_id, type, payload)
           values ($1, $2, 'submission.approved', json_build_object('resource', 'submissions', 'n', $3::int, 'pad', $4::text))`,
          [id, brandC, i, pad],
        );
      await client.query(
        `insert into records.outbox (id, brand_id, type, payload)
         values ($1, $2, 'submission.approved', '{"resource":"submissions"}')`,
        [idD, brandD],
      );
      await client.query('commit');
    } finally {
      client.release();
    }

    const all = [...idsC, idD];
    await waitFor(
      async () => {
        const rows = await rowsOf(all);
        return rows.length === 101 && rows.every((r) => r.published) ? rows : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200, what: 'all 101 rows marked published' },
    );
    expect((await rowsOf(all)).filter((r) => r.set_aside)).toEqual([]);
    await waitFor(() => all.every((id) => onTopic(id) >= 1), {
      timeoutMs: 20_000,
      what: 'all 101 on the topic',
    }).catch((err: unknown) => {
      throw new Error(
        `${all.filter((id) => onTopic(id) >= 1).length} of 101 on the topic, ${topic.messages.length} messages`,
        { cause: err },
      );
    });
    // brand C's order, as a consumer sees it (first sighting of each id: a resent part repeats)
    const seen: string[] = [];
    for (const m of topic.messages) {
      const id = m.event?.id ?? '';
      if (idsC.includes(id) && !seen.includes(id)) seen.push(id);
    }
    expect(seen).toEqual(idsC);
    expect(await scrapeMetric(stack.records.opsUrl, /^outbox_events_set_aside_total /)).toBe(1);
  });
  it('refuses at the write a change whose event could never be published', async () => {
    const brand = (await stack.admin.createBrand()).brand.id;
    const [campaign] = await makeRecords(stack.db.pool, brand, 'campaigns', 1, () => ({
      status: 'completed',
      title: 'z'.repeat(600_000),
    }));
    const refused = await stack.admin.records('settleCampaign', { campaign_id: campaign!.id }).then(
      () => ({ code: 'ok', message: '' }),
      (err: { code: string; message: string }) => ({ code: err.code, message: err.message }),
    );
    expect(refused.code).toBe('precondition_failed');
    expect(refused.message).toMatch(/too large to publish as an event/);
    const { rows } = await stack.db.pool.query<{ status: string; events: number }>(
      `select status, (select count(*)::int from records.outbox where brand_id = $1) as events
       from records.campaigns where id = $2`,
      [brand, campaign!.id],
    );
    expect(rows).toEqual([{ status: 'completed', events: 0 }]);
  });
});
