// The bare split's back (BENCH_LEAN=1, lib/walk.mjs): B0's page work behind the system's own
// page stream (StreamRecordsPages, proto/brand/records/v1), and nothing else: no internal
// credential, no deadline or cancellation, no trace, metric or log, no change version. With
// front.mjs it measures what the design's split costs at its barest, on the same machine and
// in the same rounds as B0 and the system (BENCHMARKS.md, "The split's floor"). Pages are B0's:
// its keyset SQL, its signed cursors, JSON.stringify of pg's rows, so the front serves B0's
// request lists. Env: DATABASE_URL, CURSOR_SECRET.
import { createRequire } from 'node:module';
import { KEYSET_QUERIES, cursorCodec } from '../baselinePages.mjs';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const pg = require('pg');
const { RecordsServiceService } = require('../../../proto/dist/brand/records/v1/records.js');

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  application_name: 'bench-lean',
  idleTimeoutMillis: 0, // kept open while other arms run, so its backends' CPU stays counted
  options: '-c search_path=records',
});
const secret = process.env.CURSOR_SECRET;
/** The proto's Resource enum. */
const RESOURCES = ['', 'campaigns', 'submissions', 'payouts', 'deposits', 'conversions', 'links'];
/** B0's two statements per resource, prepared (named) as the records service prepares its own. */
const QUERIES = Object.fromEntries(
  Object.entries(KEYSET_QUERIES).map(([t, { first, after }]) => [
    t,
    {
      first: { name: `lean-${t}-first`, text: first },
      after: { name: `lean-${t}-after`, text: after },
    },
  ]),
);
const cursors = cursorCodec(secret);

/** One ListRecordsPageRequest, answered as a ListRecordsPageResponse. */
async function page(req) {
  const resource = RESOURCES[req.resource];
  const queries = QUERIES[resource];
  const limit = req.limit ?? 50;
  const binding = `${req.brand_id}.${resource}`;
  let rows;
  if (req.cursor === undefined) {
    ({ rows } = await pool.query({ ...queries.first, values: [req.brand_id, limit] }));
  } else {
    const at = cursors.decode(binding, req.cursor);
    if (!at) throw new Error('invalid_cursor');
    ({ rows } = await pool.query({ ...queries.after, values: [req.brand_id, limit, at.t, at.i] }));
  }
  return {
    data_json: Buffer.from(JSON.stringify(rows)),
    count: rows.length,
    next_cursor: rows.length === limit ? cursors.encode(binding, rows[rows.length - 1]) : undefined,
    change_version: undefined,
  };
}

const answer = (call, call_id, outcome) =>
  call.write({ kind: { $case: 'answer', value: { call_id, outcome } } });
const failure = (code) => ({ code, message: '', details_json: '', retry_after_seconds: 0 });

const server = new grpc.Server();
server.addService(RecordsServiceService, {
  streamRecordsPages(call) {
    call.on('data', (message) => {
      if (message.kind?.$case !== 'call') return;
      const { call_id, page: request } = message.kind.value;
      page(request).then(
        (value) => answer(call, call_id, { $case: 'page', value }),
        (err) => answer(call, call_id, { $case: 'failure', value: failure(err.message) }),
      );
    });
    call.on('end', () => call.end());
    call.on('error', () => {});
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  console.log(JSON.stringify({ msg: 'listening', port }));
});
process.on('SIGTERM', () => process.exit(0));
