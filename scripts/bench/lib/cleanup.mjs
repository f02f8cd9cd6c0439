// Cleanup of everything a run creates: steps registered as resources are created, run
// once in reverse order whatever happens (success, failure, Ctrl-C, the watchdog).
import { killAllServicesNow } from './processes.mjs';

const cleanups = [];
let cleaning;
let interrupted = 0;

/** Registers a step; `run` may be async. */
export function onCleanup(name, run) {
  cleanups.push({ name, run });
}

export function runCleanups() {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step.run();
      } catch (err) {
        console.error(`[bench] cleanup "${step.name}" failed: ${err.message}`);
      }
    }
  })();
  return cleaning;
}

/** True once Ctrl-C (or SIGTERM) was received: the signal handler exits the process. */
export const wasInterrupted = () => interrupted > 0;

/** SIGINT/SIGTERM clean up (a third press abandons it) and a watchdog bounds the run. */
export function installCleanupTriggers(watchdogSeconds) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      interrupted += 1;
      if (interrupted > 2) {
        killAllServicesNow();
        process.exit(130);
      }
      if (interrupted > 1) {
        console.error('[bench] still cleaning up; press Ctrl-C again to abandon it');
        return;
      }
      console.error(`\n[bench] ${signal}: stopping and cleaning up`);
      void runCleanups().then(() => process.exit(130));
    });
  }
  process.on('exit', killAllServicesNow);
  const watchdog = setTimeout(() => {
    console.error(`[bench] watchdog: still running after ${watchdogSeconds} s; aborting`);
    void runCleanups().then(() => process.exit(2));
  }, watchdogSeconds * 1000);
  watchdog.unref();
}
