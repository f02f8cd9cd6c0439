#!/usr/bin/env node
// Summarises V8 CPU profiles (.cpuprofile, as `BENCH_PROFILE=1 npm run bench` writes them
// under .local/bench/profiles/<process>/): self time by package or area, and the top
// functions, so BENCHMARKS.md can say where each process spends its time.
// Usage: node scripts/bench/profileSummary.mjs [dir ...] (default: every process's dir).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROFILES = path.join(ROOT, '.local/bench/profiles');
const TOP = Number(process.env.TOP ?? 15);

/** The package (node_modules/<pkg>), workspace file, node internal or V8 bucket of a frame. */
function areaOf(frame) {
  const url = frame.url ?? '';
  if (!url) return frame.functionName ? `(native) ${frame.functionName}` : '(program)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 3).join('/')}`;
  return path
    .relative(ROOT, url.replace(/^file:\/\//, ''))
    .split('/')
    .slice(0, 4)
    .join('/');
}

function summarise(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++)
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
  let total = 0;
  let idle = 0;
  const areas = new Map();
  const fns = new Map();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    const frame = node.callFrame;
    total += us;
    if (frame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const area = areaOf(frame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const fn = `${frame.functionName || '(anonymous)'} ${area}:${frame.lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
  }
  const busy = total - idle;
  const pct = (us) => `${((us / busy) * 100).toFixed(1).padStart(5)} %`;
  const top = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  console.log(
    `\n## ${path.relative(ROOT, file)}: busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s`,
  );
  console.log('self time by area:');
  for (const [k, v] of top(areas)) console.log(`  ${pct(v)}  ${k}`);
  console.log('top functions (self):');
  for (const [k, v] of top(fns)) console.log(`  ${pct(v)}  ${k}`);
}

const dirs = process.argv.slice(2).length
  ? process.argv.slice(2)
  : existsSync(PROFILES)
    ? readdirSync(PROFILES).map((d) => path.join(PROFILES, d))
    : [];
if (dirs.length === 0) console.error(`no profiles: run BENCH_PROFILE=1 npm run bench first`);
for (const dir of dirs)
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.cpuprofile')))
    summarise(path.join(dir, f));
