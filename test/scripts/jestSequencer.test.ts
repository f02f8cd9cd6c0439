// The test order of a fresh clone (scripts/lib/jestSequencer.cjs): with no durations in jest's
// cache, the files of test/fileDurations.json run longest first and a file it does not know
// runs before them, as jest itself runs files it has never timed. The sequencer is loaded by
// node in a child process, as jest loads it, and given jest's own test objects' shape.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

const SEQUENCER = path.join(REPO_ROOT, 'scripts/lib/jestSequencer.cjs');

/** The order the sequencer gives `files` (paths from the root) with an empty jest cache. */
function orderOf(files: string[]): string[] {
  const script = `
    const path = require('node:path');
    const Sequencer = require(${JSON.stringify(SEQUENCER)});
    const root = ${JSON.stringify(REPO_ROOT)};
    // jest's cache off: no duration of its own, as on a fresh clone
    const context = { config: { cache: false, rootDir: root }, hasteFS: { getSize: () => 1 } };
    const tests = ${JSON.stringify(files)}.map((file) => ({ path: path.join(root, file), context }));
    const sorted = new Sequencer({ contexts: [], globalConfig: {} }).sort(tests);
    process.stdout.write(JSON.stringify(sorted.map((test) => path.relative(root, test.path))));
  `;
  return JSON.parse(
    execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }),
  ) as string[];
}

it('runs the longest known files first, and a file it has no duration for before them', () => {
  const durations = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'test/fileDurations.json'), 'utf8'),
  ) as Record<string, number>;
  const bySeconds = Object.entries(durations).sort((a, b) => a[1] - b[1]);
  expect(bySeconds.length).toBeGreaterThan(10);
  const shortest = bySeconds[0]![0];
  const middle = bySeconds[Math.floor(bySeconds.length / 2)]![0];
  const longest = bySeconds[bySeconds.length - 1]![0];
  expect(durations[longest]).toBeGreaterThan(durations[shortest]!);
  const unknown = 'gateway/test/integration/not.timed.yet.test.ts';

  expect(orderOf([shortest, middle, unknown, longest])).toEqual([
    unknown,
    longest,
    middle,
    shortest,
  ]);
});
