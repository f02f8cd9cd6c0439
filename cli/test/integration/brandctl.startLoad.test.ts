import { join } from 'node:path';
import { modulesLoadedBy, REPO_ROOT } from '@brand/testkit';

// brandctl starts once per command, so what its start loads is most of what a command costs:
// it calls the services and serves nothing, so it loads the calling side of gRPC alone
// (@brand/shared/grpcClient). The serving side (grpc-health-check's definitions, parsed by
// protobufjs at load; OpenTelemetry; the page streams) took about a sixth of a command's CPU.

it("loads the calling side of gRPC only, none of the services' serving side", () => {
  // with no arguments brandctl builds its whole command tree and prints its help
  const loaded = modulesLoadedBy(join(REPO_ROOT, 'cli/dist/main.js'));
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
