// A jest reporter that keeps how long each test file took, so the files that make a run slow
// are known (docs/internals.md, "Tests"). Every run appends one line per file to
// .local/test-timings/runs.jsonl (project, file, seconds, status, when); `--print N` (run as a
// script) prints the N slowest files of the lines written since a given time, and
// `--write-durations` writes each file's latest passing duration to test/fileDurations.json,
// which orders a fresh clone's run longest first (scripts/lib/jestSequencer.cjs).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const TIMINGS_FILE = path.join(REPO_ROOT, '.local', 'test-timings', 'runs.jsonl');
const DURATIONS_FILE = path.join(REPO_ROOT, 'test', 'fileDurations.json');

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

function timingRows() {
  if (!fs.existsSync(TIMINGS_FILE)) return [];
  return fs
    .readFileSync(TIMINGS_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** The `count` slowest files among the lines written at or after `sinceIso`. */
function slowest(count, sinceIso) {
  return timingRows()
    .filter((row) => row.at >= sinceIso)
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
}

/**
 * Writes each file's latest passing duration (s), unit tests aside, to test/fileDurations.json,
 * merged over the durations already there (a run of one project leaves the others' as they
 * were); a file that no longer exists is dropped. Sorted by path, so a refresh's diff shows
 * what moved.
 */
/** test/fileDurations.json: seconds a file took in a recent run, by path from the root. */
function knownDurations() {
  try {
    return JSON.parse(fs.readFileSync(DURATIONS_FILE, 'utf8'));
  } catch {
    return {};
  }
}

function writeDurations() {
  const durations = knownDurations();
  for (const row of timingRows()) {
    // the unit tests run on one worker, where the order changes nothing
    if (row.status === 'passed' && row.project !== 'unit') {
      durations[row.file] = Number(row.seconds.toFixed(1));
    }
  }
  const kept = Object.keys(durations)
    .filter((file) => fs.existsSync(path.join(REPO_ROOT, file)))
    .sort()
    .map((file) => [file, durations[file]]);
  fs.writeFileSync(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
  console.log(`${kept.length} files' durations in ${path.relative(REPO_ROOT, DURATIONS_FILE)}`);
}

if (require.main === module && process.argv.includes('--write-durations')) {
  writeDurations();
} else if (require.main === module) {
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
// the order of a fresh clone's run reads them (jestSequencer.cjs)
module.exports.knownDurations = knownDurations;
