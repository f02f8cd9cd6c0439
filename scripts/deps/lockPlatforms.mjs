// Checks that package-lock.json can install on every platform the project supports, offline:
//  1. every optional dependency a locked package declares has its own lock entry (npm ci
//     refuses a lock that lacks one: "Missing: @bufbuild/buf-darwin-arm64 from lock file");
//  2. every package that ships its binary as per-platform optional packages (buf, jest's
//     resolver, knip's parser) has one for each supported operating system and CPU.
// A lock written against a registry that lacks another platform's binaries fails here.
// Usage: node scripts/deps/lockPlatforms.mjs [package-lock.json]
import { readFileSync } from 'node:fs';

/** The platforms developers, CI and the container images run on (os, cpu as npm names them). */
const SUPPORTED = [
  ['linux', 'x64'],
  ['linux', 'arm64'],
  ['darwin', 'x64'],
  ['darwin', 'arm64'],
];

const lockPath = process.argv[2] ?? 'package-lock.json';
const packages = JSON.parse(readFileSync(lockPath, 'utf8')).packages;

/** The lock entry Node would load for `name` required from the package at `from`. */
function resolve(from, name) {
  let base = from;
  for (;;) {
    const path = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[path]) return path;
    if (!base) return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent >= 0 ? base.slice(0, parent) : '';
  }
}

const problems = [];
for (const [path, entry] of Object.entries(packages)) {
  const optional = Object.keys(entry.optionalDependencies ?? {});
  const platformBinaries = [];
  for (const name of optional) {
    const found = resolve(path, name);
    if (!found) {
      problems.push(`${path || '(root)'}: optional dependency ${name} has no lock entry`);
      continue;
    }
    const dep = packages[found];
    if (dep.os || dep.cpu) platformBinaries.push(dep);
  }
  if (platformBinaries.length === 0) continue;
  for (const [os, cpu] of SUPPORTED) {
    const fits = platformBinaries.some(
      (dep) => (!dep.os || dep.os.includes(os)) && (!dep.cpu || dep.cpu.includes(cpu)),
    );
    if (!fits) problems.push(`${path}: no locked binary for ${os}-${cpu}`);
  }
}

if (problems.length > 0) {
  console.error(`${lockPath} cannot install on every supported platform:`);
  for (const p of problems.slice(0, 40)) console.error(`  ${p}`);
  if (problems.length > 40) console.error(`  ... and ${problems.length - 40} more`);
  console.error(
    "Regenerate it against a registry that has every platform's packages of these versions,\n" +
      'or pin versions that do (docs/internals.md "Reproducible installs").',
  );
  process.exit(1);
}
