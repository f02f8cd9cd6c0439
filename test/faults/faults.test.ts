// The fault suite (`npm run test:faults`; FAULTS=short runs the subset scripts/test.sh runs). The
// whole system runs on infrastructure of its own under steady REST, MCP, plan and business-change
// traffic; one fault at a time is injected, and after each the promises of RELIABILITY.md are
// checked: no 5xx but 503 (with Retry-After), no lost plan, no lost event, duplicates only of an
// event id already delivered, the rate limit held, recovery within 10 s. The table of figures is
// printed at the end.
import { FAULTS } from './faultList';
import { itKeepsThePromises } from './promises';
import { formatTable } from './table';
import { underTraffic } from './underTraffic';
import type { FaultResult } from './verdict';
import { startWorld, type World } from './world';

/** Steady traffic after each fault: long enough to measure recovery against the target. */
const AFTER_MS = 12_000;

const selected = process.env.FAULTS === 'short' ? FAULTS.filter((f) => f.short) : FAULTS;
const only = process.env.FAULTS_ONLY; // e.g. FAULTS_ONLY=Redis: the faults whose name has it
const faults = only ? selected.filter((f) => f.name.includes(only)) : selected;

let world: World;
const results: FaultResult[] = [];

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(async () => {
  if (results.length > 0)
    process.stdout.write(`\nFault suite (${faults.length} faults):\n${formatTable(results)}\n\n`);
  await world?.close();
}, 120_000);

describe.each(faults.map((f) => [f.name, f] as const))('%s', (_name, fault) => {
  let result: FaultResult;

  beforeAll(async () => {
    result = await underTraffic(world, {
      name: fault.name,
      warmMs: fault.warmMs,
      afterMs: AFTER_MS,
      inject: () => fault.inject(world),
    });
    results.push(result);
  }, 300_000);

  itKeepsThePromises(() => result);
});
