// jest's test sequencer, with the committed durations (test/durations.json, written by
// `node scripts/lib/jestFileTimings.cjs --save-durations`) where jest has no timing of its own:
// jest's timing cache is keyed by the checkout's absolute path, so a fresh clone has none and
// jest would start the biggest files first, not the slowest, and a long file started last runs
// alone while the other workers idle. A file in neither keeps jest's own place for it (new
// files first, the biggest first).
'use strict';

const path = require('node:path');
const TestSequencer = require('@jest/test-sequencer').default;
const { committedDurations, REPO_ROOT } = require('./jestFileTimings.cjs');

class SlowestFirstSequencer extends TestSequencer {
  time(test) {
    const own = super.time(test);
    if (own !== undefined) return own;
    this.committed ??= committedDurations();
    const seconds = this.committed.get(path.relative(REPO_ROOT, test.path));
    return seconds === undefined ? undefined : seconds * 1000;
  }
}

module.exports = SlowestFirstSequencer;
