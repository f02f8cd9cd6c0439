import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

// brandctl starts once per command, so what its start loads is most of what a command costs:
// it calls the services and serves nothing, so it loads the calling side of gRPC alone
// (@brand/shared/grpcClient). The serving side (grpc-health-check's definitions, parsed by
// protobufjs at load; OpenTelemetry; the page streams) took about a sixth of a command's CPU.

/** Every module file the built command tree loads, as brandctl's start loads it. */
function modulesLoadedByTheCommandTree(): string[] {
  const program = join(REPO_ROOT, 'cli/dist/program.js');
  const script = `require(${JSON.stringify(program)}).buildProgram();
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  return JSON.parse(
    execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }),
  ) as string[];
}

it("loads the calling side of gRPC only, none of the services' serving side", () => {
  const loaded = modulesLoadedByTheCommandTree();
  // it did load the command tree and its gRPC clients
  expect(loaded.some((file) => file.includes('/@grpc/grpc-js/'))).toBe(true);
  expect(loaded.some((file) => file.endsWith('/cli/dist/commands/key.js'))).toBe(true);

  const serving = loaded.filter((file) =>
    [
      '/grpc-health-check/',
      '/protobufjs/',
      '/@opentelemetry/',
      '/shared/dist/grpc/server.js',
      '/shared/dist/grpc/pageStreamServer.js',
    ].some((part) => file.includes(part)),
  );
  expect(serving).toEqual([]);
});
