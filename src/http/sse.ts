/**
 * @module http/sse
 * Server-sent events of one request (`GET /v1/requests/:id/events`): its current state at once, then every change,
 * and the stream ends after the final state. A comment line every 15 s keeps proxies from closing an idle stream.
 */
import type { Request, Response } from 'express';
import type { Gateway } from '../gateway/gateway.js';
import { toApiRequest } from '../requests/serialize.js';

/** Streams `request` events for request `id` until it is final or the client leaves. */
export async function streamRequestEvents(gateway: Gateway, id: string, req: Request, res: Response): Promise<void> {
  const first = await gateway.mustGet(id);
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();

  let lastSent = '';
  let closed = false;
  const send = async () => {
    const request = await gateway.get(id);
    if (!request || closed) return;
    const data = JSON.stringify(toApiRequest(request));
    if (data !== lastSent) {
      lastSent = data;
      res.write(`event: request\nid: ${request.updatedAt.getTime()}\ndata: ${data}\n\n`);
    }
    if (request.status !== 'pending') finish();
  };
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  heartbeat.unref();
  // At the deadline, read again: the read expires the row even when the timer that should have is late or gone.
  const atExpiry = gateway.clock.setTimeout(() => void send(), first.expiresAt.getTime() - gateway.now());
  const unsubscribe = gateway.subscribe((change) => {
    if (change.requestId === id) void send();
  });
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    atExpiry.cancel();
    unsubscribe();
    res.end();
  };
  req.on('close', finish);
  lastSent = JSON.stringify(toApiRequest(first));
  res.write(`event: request\nid: ${first.updatedAt.getTime()}\ndata: ${lastSent}\n\n`);
  // A change between the first read and the subscription would otherwise be missed.
  await send();
  if (first.status !== 'pending') finish();
}
