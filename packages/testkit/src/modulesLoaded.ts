import { spawnSync } from 'node:child_process';

/**
 * Every module file a built entry point loads when a bare node process (PATH and HOME, no
 * settings) requires it: its imports, and what its start loads before it stops for want of a
 * setting. Which modules a start loads is most of what it costs (docs/internals.md, "Tests").
 */
export function modulesLoadedBy(entry: string): string[] {
  const script = `process.on('exit', () => require('node:fs').writeSync(2,
      '\\nMODULES ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));
    require(${JSON.stringify(entry)});`;
  const run = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  const line = run.stderr.split('\n').find((l) => l.startsWith('MODULES '));
  if (line === undefined) throw new Error(`no module list:\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line.slice('MODULES '.length)) as string[];
}
