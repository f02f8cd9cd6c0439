import type { Logger } from '../logger';

export interface ShutdownStep {
  /** Shown in the log, e.g. "stop accepting HTTP connections". */
  name: string;
  run: () => Promise<void> | void;
}

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;

/**
 * Runs `steps` in order on the first SIGTERM or SIGINT, then exits 0 (1 if a step threw).
 * A second signal, or `graceMs` passing, forces an exit with 128+signo, so a stuck step
 * can never keep a pod in Terminating forever. Call once, from main.ts.
 */
export function onShutdown(log: Logger, graceMs: number, steps: ShutdownStep[]): void {
  let stopping = false;
  const handler = (signal: keyof typeof SIGNAL_NUMBERS): void => {
    const forcedCode = 128 + SIGNAL_NUMBERS[signal];
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(forcedCode);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ graceMs }, 'shutdown grace period passed: exiting now');
      process.exit(forcedCode);
    }, graceMs);
    timer.unref();
    void (async () => {
      let failed = false;
      for (const step of steps) {
        try {
          await step.run();
        } catch (err) {
          failed = true;
          log.error({ err, step: step.name }, 'shutdown step failed');
        }
      }
      log.info('shutdown complete');
      process.exit(failed ? 1 : 0);
    })();
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}

/**
 * Logs and exits on a failure that happens before the service is up (bad config,
 * unreachable port), so the process never lingers half-started.
 */
export function exitOnStartupFailure(log: Logger, err: unknown): never {
  log.fatal({ err }, 'startup failed');
  process.exit(1);
}
