// Two projects: `unit` (co-located *.test.ts, pure logic, no I/O) and `integration`
// (test/integration/**, real PostgreSQL, Redis, Kafka and real service processes).
// Workspace imports resolve to TypeScript sources, so unit tests need no build; the
// integration harness spawns the built services (npm run build first; scripts/test.sh does).
/** @type {import('jest').Config} */
const moduleNameMapper = {
  '^@brand/shared/(.*)$': '<rootDir>/packages/shared/src/$1',
  '^@brand/proto/access/v1$': '<rootDir>/proto/gen/brand/access/v1/access.ts',
  // every other file of a package (access/v1/usage, webhooks/v1/audit): resolving them through the
  // package's exports read proto/dist, which the test command builds beside the unit tests, so a
  // unit test importing one failed whenever it ran before the build had written it (a fresh clone)
  '^@brand/proto/([a-z]+)/v1/([a-z]+)$': '<rootDir>/proto/gen/brand/$1/v1/$2.ts',
  '^@brand/proto/activity/v1$': '<rootDir>/proto/gen/brand/activity/v1/activity.ts',
  '^@brand/proto/records/v1$': '<rootDir>/proto/gen/brand/records/v1/records.ts',
  '^@brand/proto/events/v1$': '<rootDir>/proto/gen/brand/events/v1/events.ts',
  '^@brand/proto/webhooks/v1$': '<rootDir>/proto/gen/brand/webhooks/v1/webhooks.ts',
  '^@brand/proto/plans/v1$': '<rootDir>/proto/gen/brand/plans/v1/plans.ts',
  '^@brand/testkit$': '<rootDir>/packages/testkit/src/index.ts',
  '^@brand/records/recordWriter$': '<rootDir>/services/records/src/records/recordWriter.ts',
  '^@brand/records/migrations$': '<rootDir>/services/records/src/db/migrations.ts',
  '^@brand/example-receiver$': '<rootDir>/examples/receiver/src/index.ts',
  '^@brand-records/client$': '<rootDir>/sdk/typescript/src/index.ts',
  '^@brand-records/client/webhooks$': '<rootDir>/sdk/typescript/src/webhooks/index.ts',
  '^@brand-records/client/checkpoint-file$': '<rootDir>/sdk/typescript/src/checkpointFile/index.ts',
  // The client package writes ESM-ready relative imports ('./transport.js'); its sources are .ts.
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

// @swc/jest strips types without type-checking each file (npm run check type-checks the whole
// tree once); ts-jest's per-file type check was most of a cold run's transform time.
const transform = {
  '^.+\\.tsx?$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', tsx: true },
        target: 'es2022',
        keepClassNames: true,
        transform: {
          useDefineForClassFields: true,
          react: { runtime: 'automatic', importSource: 'preact' },
        },
      },
      module: { type: 'commonjs', lazy: true },
      sourceMaps: 'inline',
    },
  ],
};

module.exports = {
  // testTimeout and slowTestThreshold are global options: inside a project they are ignored.
  // Integration hooks start real processes, which takes seconds on a busy 2-core machine.
  testTimeout: 60_000,
  slowTestThreshold: 20,
  // Every run appends each file's duration to .local/test-timings/runs.jsonl; npm test prints
  // the slowest ten at the end (scripts/lib/jestFileTimings.cjs).
  reporters: ['default', '<rootDir>/scripts/lib/jestFileTimings.cjs'],
  // The longest files first on a fresh clone too (test/fileDurations.json), not by file size.
  testSequencer: '<rootDir>/scripts/lib/jestSequencer.cjs',
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: [
        '<rootDir>/{packages,services,gateway,cli,console}/**/src/**/*.test.{ts,tsx}',
        '<rootDir>/examples/*/src/**/*.test.ts',
        '<rootDir>/sdk/typescript/src/**/*.test.ts',
      ],
      moduleNameMapper,
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      rootDir: __dirname,
      testMatch: [
        '<rootDir>/{services/*,gateway,cli,console}/test/integration/**/*.test.ts',
        '<rootDir>/sdk/typescript/test/integration/**/*.test.ts',
        '<rootDir>/packages/*/test/integration/**/*.test.ts',
        // the scripts developers run (scripts/up.sh's supervisor)
        '<rootDir>/test/scripts/**/*.test.ts',
        // what the Helm chart ships against the running processes (its monitoring)
        '<rootDir>/test/deploy/**/*.test.ts',
      ],
      // minutes-long outage tests (*.long.test.ts) run with the full fault suite (project long)
      testPathIgnorePatterns: ['\\.long\\.test\\.ts$'],
      moduleNameMapper,
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/packages/testkit/src/globalSetup.ts',
      globalTeardown: '<rootDir>/packages/testkit/src/globalTeardown.ts',
    },
    {
      // Integration tests of long outages, each minutes of mostly waiting (a broker down for a
      // burst, recovery after SIGKILLs on a broker of their own). `npm run test:faults` runs
      // them after the fault suite; `npm test` runs the fault suite's short form, which injects
      // the same faults (RELIABILITY.md).
      displayName: 'long',
      rootDir: __dirname,
      testMatch: ['<rootDir>/{services/*,gateway}/test/integration/**/*.long.test.ts'],
      moduleNameMapper,
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/packages/testkit/src/globalSetup.ts',
      globalTeardown: '<rootDir>/packages/testkit/src/globalTeardown.ts',
    },
    {
      // The fault suite (npm run test:faults, RELIABILITY.md): the whole system on a PostgreSQL,
      // Redis and Kafka of its own, faults injected one at a time. Minutes long: run it by name
      // (--selectProjects faults), as every npm script does with its own project.
      displayName: 'faults',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
      moduleNameMapper,
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/faults/globalSetup.ts',
    },
    {
      // The console in Debian's Chromium (playwright-core): real pages, real services.
      displayName: 'browser',
      rootDir: __dirname,
      testMatch: ['<rootDir>/console/test/browser/**/*.test.ts'],
      moduleNameMapper,
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/packages/testkit/src/globalSetup.ts',
      globalTeardown: '<rootDir>/packages/testkit/src/globalTeardown.ts',
    },
  ],
};
