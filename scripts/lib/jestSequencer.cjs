// Jest's test order: the longest files first, even on a fresh clone (as in CI).
// Jest's own sequencer puts a file it has timed before in order of its last duration, longest
// first, so the run does not end on one long file while the other workers idle. It keeps those
// durations in its cache directory, which a fresh clone does not have; it then orders by file
// size, which put long files among the last (a 52 s browser file 12th of 13, a 32 s integration
// file last of 172). Where jest's cache knows no duration, this one takes the file's duration
// from test/fileDurations.json (written from the runs' timings by
// `node scripts/lib/jestFileTimings.cjs --write-durations`). A file missing from both runs
// first, as with jest's own order. Failed files still go first.
'use strict';

const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const { knownDurations } = require('./jestFileTimings.cjs');

const REPO_ROOT = path.resolve(__dirname, '..', '..');

class LongestFirstSequencer extends Sequencer {
  constructor(options) {
    super(options);
    this.known = knownDurations();
  }

  /** Jest's own record in ms when it has one, else the committed one. */
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const seconds = this.known[path.relative(REPO_ROOT, test.path)];
    return typeof seconds === 'number' ? seconds * 1000 : undefined;
  }
}

module.exports = LongestFirstSequencer;
