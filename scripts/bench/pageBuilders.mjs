#!/usr/bin/env node
// Where a page's JSON is cheapest to build (issue 25 item 4), measured on the walk's pages:
// the builders below turn the same page query into the same bytes (checked on every page),
// and take turns in interleaved rounds over every page of the walk, 8 pages in flight on a
// pool of 4 connections each, like records under load. Per page: the node CPU of this
// process (which runs records' own compiled builder, so it stands for records' page work
// without the gRPC around it) and the CPU of the builder's PostgreSQL backends (/proc, by
// application_name). The full bench then confirms the kept builder in records itself.
//   rowShapes     records' selectPageJson (services/records/dist): rows as arrays, one row
//                 shape per resource compiled once, JSON.stringify (kept)
//   pgObjects     the same query, pg's row objects, JSON.stringify (records before issue 25)
//   concat        rows as arrays, a serializer per resource compiled to string concatenation,
//                 JSON.stringify per text value, numbers and timestamps written as they are
//   postgresJson  PostgreSQL builds each row's JSON (row_to_json, counters as bigint), node
//                 joins the rows; the cursor's position from the last row
// Usage: node scripts/bench/pageBuilders.mjs (BENCH_WALK_BRANDS / BENCH_WALK_SCALE as the
// bench, PAGE_BUILDER_ROUNDS=15; BENCH_SKIP_BUILD=1). Needs the local PostgreSQL and Redis.
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { installCleanupTriggers, runCleanups } from './lib/cleanup.mjs';
import { backendPids } from './lib/infra.mjs';
import { cpuSeconds } from './lib/load.mjs';
import { createEnterpriseBrands, seedDemoData } from './lib/seed.mjs';
import { build, createInfrastructure, recordsEnv, spawnHelper } from './lib/stack.mjs';
import { ADMIN_TOKEN, MAINS, REPO_ROOT, SETTINGS, say } from './lib/settings.mjs';

const require = createRequire(import.meta.url);
const dist = (file) => path.join(REPO_ROOT, 'services/records/dist/records', file);
const ROUNDS = Number(process.env.PAGE_BUILDER_ROUNDS ?? 15);
const IN_FLIGHT = 8;
const POOL_SIZE = 4;
const LIMIT = SETTINGS.pageSize;

/** The builders; each resolves a page query to { bytes, count, last }. Loaded after the build. */
function builders() {
  const { selectPageJson, pageQuery, SELECT_LISTS } = require(dist('recordRepo.js'));
  const { RESOURCE_TABLES, selectExpression } = require(dist('resourceTables.js'));
  const columnsOf = (resource) => Object.entries(RESOURCE_TABLES[resource].columns);
  const named = new Map();
  const statement = (prefix, text) => {
    if (!named.has(text)) named.set(text, `${prefix}_${named.size + 1}`);
    return named.get(text);
  };
  const positionOf = (resource) => {
    const names = columnsOf(resource).map(([c]) => c);
    return { createdAt: names.indexOf('created_at'), id: names.indexOf('id') };
  };
  const lastOf = (rows, at) => {
    const row = rows[rows.length - 1];
    return row && { createdAt: row[at.createdAt], id: row[at.id] };
  };

  // a serializer compiled to string concatenation, per resource
  const concat = Object.fromEntries(
    Object.keys(RESOURCE_TABLES).map((resource) => {
      const parts = columnsOf(resource).map(([column, kind], i) => {
        const key = JSON.stringify(`${i === 0 ? '{' : ','}${JSON.stringify(column)}:`);
        const value =
          kind === 'timestamptz' || kind === 'date'
            ? `(r[${i}] === null ? 'null' : '"' + r[${i}] + '"')`
            : `J(r[${i}])`;
        return `${key} + ${value}`;
      });
      const source = `let s = '[';
        for (let i = 0; i < rows.length; i++) {
          const r = rows[i];
          s += (i === 0 ? '' : ',') + ${parts.join(' + ')} + '}';
        }
        return s + ']';`;
      return [resource, new Function('J', `return (rows) => { ${source} }`)(JSON.stringify)];
    }),
  );
  // the select list with counters as bigint: row_to_json writes float8 >= 1e15 as 1e+15
  const bigintList = (resource) =>
    columnsOf(resource)
      .map(([c, kind]) => selectExpression(c, kind === 'int8' ? 'text' : kind))
      .join(', ');

  return {
    rowShapes: async (pool, q) => {
      const page = await selectPageJson(pool, q);
      return { bytes: Buffer.from(page.json), count: page.count, last: page.last };
    },
    pgObjects: async (pool, q) => {
      const { sql, params } = pageQuery(q);
      const { rows } = await pool.query({ name: statement('o', sql), text: sql, values: params });
      const last = rows[rows.length - 1];
      return {
        bytes: Buffer.from(JSON.stringify(rows)),
        count: rows.length,
        last: last && { createdAt: last.created_at, id: last.id },
      };
    },
    concat: async (pool, q) => {
      const { sql, params } = pageQuery(q);
      const { rows } = await pool.query({
        name: statement('c', sql),
        text: sql,
        values: params,
        rowMode: 'array',
      });
      return {
        bytes: Buffer.from(concat[q.resource](rows)),
        count: rows.length,
        last: lastOf(rows, positionOf(q.resource)),
      };
    },
    postgresJson: async (pool, q) => {
      const { sql, params } = pageQuery(q);
      const inner = sql.replace(SELECT_LISTS[q.resource], bigintList(q.resource));
      const text = `select row_to_json(p)::text from (${inner}) p`;
      const { rows } = await pool.query({
        name: statement('p', text),
        text,
        values: params,
        rowMode: 'array',
      });
      let json = '[';
      for (let i = 0; i < rows.length; i++) json += (i === 0 ? '' : ',') + rows[i][0];
      const last = rows.length > 0 ? JSON.parse(rows[rows.length - 1][0]) : undefined;
      return {
        bytes: Buffer.from(`${json}]`),
        count: rows.length,
        last: last && { createdAt: last.created_at, id: last.id },
      };
    },
  };
}

/** Every page of the walk as a page query: each chain followed to its end. */
async function walkQueries(pool, brands, build) {
  const { RESOURCE_TABLES } = require(dist('resourceTables.js'));
  const queries = [];
  for (const { brandId } of brands)
    for (const resource of Object.keys(RESOURCE_TABLES)) {
      let after;
      for (;;) {
        const q = { brandId, resource, limit: LIMIT, since: undefined, after };
        queries.push(q);
        const page = await build(pool, q);
        if (page.count < LIMIT) break;
        after = page.last;
      }
    }
  return queries;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  say(
    `machine: ${os.cpus().length} cpus, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  await build();
  const infra = await createInfrastructure();
  const seeder = await spawnHelper('records-seed', MAINS.records, recordsEnv(infra));
  const address = `127.0.0.1:${seeder.port}`;
  const brands = await createEnterpriseBrands(address, ADMIN_TOKEN, SETTINGS.walkBrands, {
    namePrefix: 'Builder Brand',
  });
  await seedDemoData(
    address,
    ADMIN_TOKEN,
    brands.map((b) => b.brandId),
    SETTINGS.walkScale,
  );
  await seeder.stop();

  const variants = builders();
  const pools = Object.fromEntries(
    Object.keys(variants).map((name) => {
      const pool = new pg.Pool({
        connectionString: infra.dbUrl,
        max: POOL_SIZE,
        idleTimeoutMillis: 0, // the backends' pids are read once; they must stay
        application_name: `bench-builder-${name}`,
        options: '-c search_path=records',
      });
      pool.on('error', () => undefined); // the database is dropped at the end
      return [name, pool];
    }),
  );
  const queries = await walkQueries(pools.rowShapes, brands, variants.rowShapes);
  say(`${brands.length} brands, ${queries.length} pages; checking every builder's bytes`);
  for (const q of queries) {
    const reference = await variants.pgObjects(pools.pgObjects, q);
    for (const [name, run] of Object.entries(variants)) {
      const page = await run(pools[name], q);
      if (
        !page.bytes.equals(reference.bytes) ||
        page.count !== reference.count ||
        JSON.stringify(page.last) !== JSON.stringify(reference.last)
      )
        throw new Error(`${name}'s page of ${q.resource} differs from pg's row objects'`);
    }
  }
  say('every builder gave the same bytes, count and cursor position on every page');

  const backends = {};
  for (const name of Object.keys(variants)) {
    // every connection of the pool open before its pids are read
    await Promise.all(queries.slice(0, POOL_SIZE * 2).map((q) => variants[name](pools[name], q)));
    backends[name] = await backendPids(infra.dbName, `bench-builder-${name}`);
  }
  const pgSeconds = (name) => backends[name].reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const results = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  const names = Object.keys(variants);
  for (let round = 0; round < ROUNDS; round++)
    // the order turns every round, so no builder always follows the same one
    for (const name of [
      ...names.slice(round % names.length),
      ...names.slice(0, round % names.length),
    ]) {
      const run = variants[name];
      let next = 0;
      const node = process.cpuUsage();
      const pgBefore = pgSeconds(name);
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < queries.length) await run(pools[name], queries[next++]);
        }),
      );
      const used = process.cpuUsage(node);
      results[name].push({
        node: (used.user + used.system) / 1000 / queries.length,
        postgres: ((pgSeconds(name) - pgBefore) * 1000) / queries.length,
      });
    }
  for (const pool of Object.values(pools)) await pool.end();

  // each round's figure over pgObjects' in the same round (adjacent slices): the machine's
  // load moves between rounds far more than between neighbouring slices
  const total = (r) => r.node + r.postgres;
  const ratio = (name, key) =>
    median(results[name].map((r, i) => key(r) / key(results.pgObjects[i])));
  console.log(
    `\nCPU ms per page, median of ${ROUNDS} interleaved rounds over ${queries.length} pages, and the median of each round's figure over pgObjects' in the same round:`,
  );
  console.log('builder         node   PostgreSQL   total   node vs pgObjects   total vs pgObjects');
  for (const [name, rs] of Object.entries(results))
    console.log(
      `${name.padEnd(14)} ${median(rs.map((r) => r.node)).toFixed(3)}   ${median(rs.map((r) => r.postgres)).toFixed(3)}        ${median(rs.map(total)).toFixed(3)}   ${ratio(name, (r) => r.node).toFixed(3)}               ${ratio(name, total).toFixed(3)}`,
    );
  say(
    `load average now ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

installCleanupTriggers(900);
let exitCode = 1;
try {
  await main();
  exitCode = 0;
} catch (err) {
  console.error(`[page builders] failed: ${err.stack ?? err}`);
} finally {
  await runCleanups();
}
process.exit(exitCode);
