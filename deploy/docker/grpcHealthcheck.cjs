#!/usr/bin/env node
// Container health check for the gRPC services under docker-compose (Kubernetes uses native
// gRPC probes): calls grpc.health.v1.Health/Check on 127.0.0.1 and exits 0 only for SERVING.
//   node deploy/docker/grpcHealthcheck.cjs [port] [service]   (port defaults to $GRPC_PORT)
// It needs no generated code: the request for the overall status is an empty message, and a
// SERVING reply is the two bytes 0x08 0x01 (field 1, varint 1). The health service requires
// no credential, so no token is read here.
const grpc = require('@grpc/grpc-js');

const port = Number(process.argv[2] ?? process.env.GRPC_PORT);
const service = process.argv[3] ?? '';
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: grpcHealthcheck.cjs <port> [service] (or set GRPC_PORT)\n');
  process.exit(2);
}

// HealthCheckRequest { string service = 1; }
const request = service
  ? Buffer.concat([Buffer.from([0x0a, Buffer.byteLength(service)]), Buffer.from(service)])
  : Buffer.alloc(0);
const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
client.makeUnaryRequest(
  '/grpc.health.v1.Health/Check',
  (b) => b,
  (b) => b,
  request,
  { deadline: Date.now() + 2000 },
  (err, reply) => {
    client.close();
    const serving = !err && reply.length === 2 && reply[0] === 0x08 && reply[1] === 0x01;
    if (!serving)
      process.stderr.write(err ? `health check failed: ${err.message}\n` : 'not SERVING\n');
    process.exit(serving ? 0 : 1);
  },
);
