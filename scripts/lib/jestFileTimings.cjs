// A jest reporter that keeps how long each test file took, so the files that make a run slow
// are known (docs/internals.md, "Tests"). Every run appends one line per file to
// .local/test-timings/runs.jsonl (project, file, seconds, status, when); `--print N` (run as a
// script) prints the N slowest files of the lines written since a given time.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const TIMINGS_FILE = path.join(REPO_ROOT, '.local', 'test-timings', 'runs.jsonl');

class JestFileTimings {
  onRunComplete(_contexts, results) {
    const at = new Date().toISOString();
    const lines = results.testResults.map((file) =>
      JSON.stringify({
        at,
        project: file.displayName?.name ?? file.displayName ?? '',
        file: path.relative(REPO_ROOT, file.testFilePath),
        seconds: Number(((file.perfStats.end - file.perfStats.start) / 1000).toFixed(2)),
        status: file.testExecError || file.numFailingTests > 0 ? 'failed' : 'passed',
      }),
    );
    if (lines.length === 0) return;
    fs.mkdirSync(path.dirname(TIMINGS_FILE), { recursive: true });
    fs.appendFileSync(TIMINGS_FILE, `${lines.join('\n')}\n`);
  }
}

/** The `count` slowest files among the lines written at or after `sinceIso`. */
function slowest(count, sinceIso) {
  if (!fs.existsSync(TIMINGS_FILE)) return [];
  return fs
    .readFileSync(TIMINGS_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((row) => row.at >= sinceIso)
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
}

if (require.main === module) {
  // node scripts/lib/jestFileTimings.cjs --print 10 [--since <ISO time>]
  const args = process.argv.slice(2);
  const count = Number(args[args.indexOf('--print') + 1] ?? 10);
  const since = args.includes('--since') ? args[args.indexOf('--since') + 1] : '';
  const rows = slowest(count, since);
  console.log(
    `the ${rows.length} slowest test files (all of them: ${path.relative(REPO_ROOT, TIMINGS_FILE)})`,
  );
  for (const row of rows) {
    console.log(`  ${row.seconds.toFixed(1).padStart(7)} s  ${row.project.padEnd(12)} ${row.file}`);
  }
}

module.exports = JestFileTimings;
