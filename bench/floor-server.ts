/**
 * @module bench/floor-server
 * The floor: a bare node:http server in its own process, answering every request with a small JSON body after
 * reading the request body. What the gateway adds is measured against this.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const reply = JSON.stringify({ id: '00000000-0000-7000-8000-000000000000', status: 'pending' });
const server = createServer((req, res) => {
  let size = 0;
  req.on('data', (chunk: Buffer) => (size += chunk.length));
  req.on('end', () => {
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
    res.end(reply);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`floor listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
