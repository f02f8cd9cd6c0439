// The code cache first: a later run reads compiled code instead of compiling it again.
import '@brand/shared/compileCache';
import { CommanderError } from 'commander';
import { EXIT } from './failure';
import { buildProgram } from './program';

/** brandctl's entry point: runs the command tree and maps usage errors to exit code 2. */
async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // Commander has printed its message; help and version requests exit 0.
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
}

// `brandctl key list | head` closes stdout early; that is not an error worth a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});

main(process.argv).catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = EXIT.refused;
});
