/**
 * The few Node APIs the checkpoint file uses, typed by what is used: the package builds
 * without Node's types (its main entry runs in edge runtimes too), and only this entry point
 * (`@brand-records/client/checkpoint-file`) loads Node's modules, when a file is opened.
 */

/** A Node error's code (`EEXIST`, `ENOENT`, `ESRCH`, ...). */
export const errnoOf = (error: unknown): string | undefined =>
  (error as { code?: unknown } | null)?.code as string | undefined;

export interface FsPromises {
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  writeFile(path: string, data: string, options: { flag: string; mode: number }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  link(existing: string, newPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

/** What a lock needs to know about this process and machine. */
export interface ProcessFacts {
  pid: number;
  hostname: string;
  /** Whether a process of this pid runs on this machine (kill with signal 0). */
  isAlive(pid: number): boolean;
}

interface NodeProcess {
  pid: number;
  kill(pid: number, signal: number): boolean;
}

/** node:fs/promises, loaded on first use (a string specifier keeps it out of the types). */
export async function loadFs(): Promise<FsPromises> {
  const specifier: string = 'node:fs/promises';
  return (await import(specifier)) as FsPromises;
}

export async function loadProcessFacts(): Promise<ProcessFacts> {
  const specifier: string = 'node:os';
  const os = (await import(specifier)) as { hostname(): string };
  const proc = (globalThis as { process?: NodeProcess }).process;
  if (proc === undefined)
    throw new Error('the checkpoint file needs Node.js (a process and a file system)');
  return {
    pid: proc.pid,
    hostname: os.hostname(),
    isAlive: (pid) => {
      try {
        proc.kill(pid, 0);
        return true;
      } catch (error) {
        // EPERM: it runs, as another user
        return errnoOf(error) !== 'ESRCH';
      }
    },
  };
}
