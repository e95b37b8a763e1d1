/**
 * @module bench/floor-server
 * The floor: a bare node:http server in its own process, answering every request with a small JSON body after
 * reading the request body. What the gateway adds is measured against this.
 *
 * It also holds long-polls the way the gateway's API is called, doing nothing else: a `GET …/<id>?wait=S` is parked
 * (its response kept in a map, with the timer any long-poll needs) until a `POST …/<id>/decision` answers it, so the
 * waiters scenario's client runs unchanged against it and its RSS is what node itself costs per parked call.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const reply = JSON.stringify({ id: '00000000-0000-7000-8000-000000000000', status: 'pending' });
const approved = JSON.stringify({ id: '00000000-0000-7000-8000-000000000000', status: 'approved' });
const parked = new Map<string, { res: ServerResponse; timer: NodeJS.Timeout }>();
const ITEM = /^\/v1\/requests\/([^/?]+)(\/decision)?/;

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer((req, res) => {
  let size = 0;
  req.on('data', (chunk: Buffer) => (size += chunk.length));
  req.on('end', () => {
    const item = ITEM.exec(req.url ?? '');
    if (req.method === 'GET' && item && req.url!.includes('wait=')) {
      const id = item[1]!;
      const timer = setTimeout(() => {
        parked.delete(id);
        answer(res, 200, reply);
      }, 55_000);
      parked.set(id, { res, timer });
      res.once('close', () => {
        clearTimeout(timer);
        parked.delete(id);
      });
      return;
    }
    if (req.method === 'POST' && item?.[2]) {
      const waiter = parked.get(item[1]!);
      if (waiter) {
        parked.delete(item[1]!);
        clearTimeout(waiter.timer);
        answer(waiter.res, 200, approved);
      }
      answer(res, 200, approved);
      return;
    }
    answer(res, req.method === 'POST' ? 201 : 200, reply);
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
