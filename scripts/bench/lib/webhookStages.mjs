// Where S6's commit-to-2xx time goes: each delivery's way split into the pipeline's own
// timestamps, so a slow p99 names its stage instead of leaving a guess.
//   commit -> relay claim     records.outbox created_at (the change's transaction) to
//                             published_at (now() of the relay's claiming transaction)
//   with `answered` (event id -> when records answered the change, approvePaced's), that
//   first stage is also split in two, to tell a change slow to commit from a relay slow to
//   claim it:
//     change -> answered      created_at to the answer (the transaction's commit, the
//                             change's version published, the gRPC answer)
//     answered -> relay claim the answer to published_at (below 0 when the relay claimed the
//                             event before the answer came back; counted as 0)
//   claim -> ingest           to webhooks.events received_at (the consumer's transaction):
//                             the send, Kafka, the consumer's fetch and batch
//   ingest -> attempt         webhooks.deliveries created_at (same transaction) to the first
//                             attempt's started_at (a worker claimed it and began)
//   attempt -> receipt        to the receiver's receipt time: signing, the HTTPS request
// Timestamps come from PostgreSQL's clock and from node's on the same machine.
import pg from 'pg';
import { percentile } from './load.mjs';

const ms = (column) => `(extract(epoch from ${column}) * 1000)::float8`;

/**
 * p50/p99/max (ms) of every stage over `deliveries` ([receipt ms, event id, created_at ms,
 * receiver index], the receivers' list; receiver i is registered at /hooks/i); `answered`:
 * see above.
 */
export async function pipelineStages(dbUrl, deliveries, answered) {
  const eventIds = [...new Set(deliveries.map((d) => d[1]).filter(Boolean))];
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select d.event_id, substring(r.url from '/hooks/([0-9]+)$')::int as receiver,
              ${ms('o.created_at')} as committed, ${ms('o.published_at')} as claimed,
              ${ms('e.received_at')} as ingested, ${ms('a.started_at')} as attempted
         from webhooks.deliveries d
         join webhooks.receivers r on r.id = d.receiver_id
         join webhooks.events e on e.id = d.event_id
         join records.outbox o on o.id = d.event_id
         join webhooks.attempts a on a.delivery_id = d.id and a.number = 1
        where d.event_id = any($1::text[])`,
      [eventIds],
    );
    const byPair = new Map(rows.map((row) => [`${row.event_id}/${row.receiver}`, row]));
    const stages = {
      ...(answered ? { 'change -> answered': [], 'answered -> relay claim': [] } : {}),
      'commit -> relay claim': [],
      'claim -> ingest': [],
      'ingest -> attempt': [],
      'attempt -> receipt': [],
    };
    const seenEvents = new Set();
    for (const [receipt, eventId, , receiver] of deliveries) {
      const row = byPair.get(`${eventId}/${receiver}`);
      if (!row) continue;
      // the first two stages are one per event, not one per receiver
      if (!seenEvents.has(eventId)) {
        seenEvents.add(eventId);
        stages['commit -> relay claim'].push(row.claimed - row.committed);
        const at = answered?.get(eventId);
        if (at !== undefined) {
          stages['change -> answered'].push(at - row.committed);
          stages['answered -> relay claim'].push(Math.max(0, row.claimed - at));
        }
        stages['claim -> ingest'].push(row.ingested - row.claimed);
      }
      stages['ingest -> attempt'].push(row.attempted - row.ingested);
      stages['attempt -> receipt'].push(receipt - row.attempted);
    }
    return Object.fromEntries(
      Object.entries(stages).map(([stage, values]) => [
        stage,
        {
          p50: Math.round(percentile(values, 50)),
          p99: Math.round(percentile(values, 99)),
          max: Math.round(Math.max(...values)),
        },
      ]),
    );
  } finally {
    await client.end();
  }
}

/** One line for the run's notes: "stage p50/p99/max ms, ...". */
export function stagesText(stages) {
  return Object.entries(stages)
    .map(([stage, s]) => `${stage} ${s.p50}/${s.p99}/${s.max}`)
    .join('; ');
}
