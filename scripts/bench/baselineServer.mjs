// The benchmark's baseline: the least a Node HTTP server can do per request on this
// machine right now. `node baselineServer.mjs <body-file>` answers every request with
// that file's bytes as JSON, on 127.0.0.1 and a port the OS picks, which it logs as the
// services do: {"msg":"listening","port":<n>}.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.argv[2]);
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': body.length,
};

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', port: server.address().port }));
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
