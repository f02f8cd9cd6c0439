import { join } from 'node:path';
import { modulesLoadedBy, REPO_ROOT } from '@brand/testkit';

// The gateway serves HTTP and calls the services; it keeps no database. Its start loads neither
// PostgreSQL's client nor the services' gRPC start (it imports @brand/shared/httpServer, not
// @brand/shared/service, which brings both): about 8 % of a start that every replica, every
// restart and the test suite's hundreds of gateways pay.

it("loads no PostgreSQL client and not the services' gRPC start", () => {
  // with no settings the start stops at its configuration, after every import of main.js
  const loaded = modulesLoadedBy(join(REPO_ROOT, 'gateway/dist/main.js'));
  // it did load the gateway's own modules and its gRPC clients
  expect(loaded.some((file) => file.endsWith('/gateway/dist/app.js'))).toBe(true);
  expect(loaded.some((file) => file.includes('/@grpc/grpc-js/'))).toBe(true);

  const unneeded = loaded.filter((file) =>
    [
      '/node_modules/pg/',
      '/node_modules/pg-pool/',
      '/shared/dist/db/pool.js',
      '/shared/dist/service/listenGrpcService.js',
    ].some((part) => file.includes(part)),
  );
  expect(unneeded).toEqual([]);
});
