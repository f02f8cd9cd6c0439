#!/usr/bin/env node
// Every long-running Node process of the chart fits its container's memory limit (npm run
// deploy:check, on every rendered values set): a Deployment's container that runs `node` under a
// memory limit caps V8's old space (--max-old-space-size), and that cap plus the young generation
// (three semi-spaces of --max-semi-space-size, 16 MiB each by default on 64-bit) stays within 90%
// of the limit, the last tenth being for what lives outside V8's heap (sockets', TLS and gRPC
// buffers, code). Without the cap V8 sizes its heap from the memory it sees (the node's where the
// runtime cannot read the limit; never much below 256 MiB), and the kernel may kill the pod
// (OOMKilled, every request in flight lost) before V8 collects in earnest.
//   node scripts/deploy/checkNodeHeap.mjs <label=rendered.yaml>...
// Fails when a container breaks the rule, or when no file had a capped container to check.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const DEFAULT_SEMI_SPACE_MIB = 16;
const HEAP_SHARE_OF_LIMIT = 0.9;

const PER_UNIT_MIB = {
  '': 1 / 1048576,
  k: 1000 / 1048576,
  Ki: 1 / 1024,
  M: 1e6 / 1048576,
  Mi: 1,
  G: 1e9 / 1048576,
  Gi: 1024,
  T: 1e12 / 1048576,
  Ti: 1048576,
};

/** A Kubernetes memory quantity in MiB (undefined for a form the chart never renders). */
function mebibytes(quantity) {
  const m = /^([0-9]+(?:\.[0-9]+)?)([A-Za-z]*)$/.exec(String(quantity));
  if (!m || !(m[2] in PER_UNIT_MIB)) return undefined;
  return Number(m[1]) * PER_UNIT_MIB[m[2]];
}

/** The value of `--flag=N` among a process's arguments, as a number. */
const flag = (args, name) => {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? undefined : Number(arg.slice(name.length + 3));
};

const problems = [];
let checked = 0;
for (const spec of process.argv.slice(2)) {
  const [label, file] = spec.split('=');
  const objects = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  for (const o of objects) {
    if (o.kind !== 'Deployment') continue;
    for (const c of o.spec.template.spec.containers ?? []) {
      const args = [...(c.command ?? []), ...(c.args ?? [])];
      const limit = c.resources?.limits?.memory;
      if (args[0] !== 'node' || limit === undefined) continue;
      const where = `${label}: ${o.metadata.name}/${c.name} (memory limit ${limit})`;
      const limitMib = mebibytes(limit);
      if (limitMib === undefined) {
        problems.push(`${where}: a memory limit this check cannot read`);
        continue;
      }
      const oldSpace = flag(args, 'max-old-space-size');
      if (oldSpace === undefined) {
        problems.push(`${where}: runs node without --max-old-space-size`);
        continue;
      }
      const young = 3 * (flag(args, 'max-semi-space-size') ?? DEFAULT_SEMI_SPACE_MIB);
      if (oldSpace + young > HEAP_SHARE_OF_LIMIT * limitMib) {
        problems.push(
          `${where}: an old space of ${oldSpace} MiB and a young generation of ${young} MiB ` +
            `pass ${HEAP_SHARE_OF_LIMIT * 100}% of the limit (${Math.floor(HEAP_SHARE_OF_LIMIT * limitMib)} MiB)`,
        );
        continue;
      }
      checked++;
    }
  }
}
if (checked === 0 && problems.length === 0) problems.push('no Node container with a memory limit');
if (problems.length > 0) {
  console.error(`Node heaps that do not fit their containers:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `${checked} Node containers: V8's heap within ${HEAP_SHARE_OF_LIMIT * 100}% of the memory limit`,
);
