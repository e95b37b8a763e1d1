/**
 * @module channels/web/stream
 * `GET /ui/stream`: server-sent events telling open pages that a request was filed or changed. An event carries
 * only the id and new status; the page then re-reads its own HTML, so the stream never carries request content.
 */
import type { Request, Response } from 'express';
import type { ChannelHost } from '../../src/channel/channel.js';

/** Open streams, so that stopping the channel can end them instead of holding the server open. */
export class ChangeStreams {
  private readonly open = new Set<() => void>();

  /** Streams every change of `feed` to `res` until the client leaves or {@link closeAll} is called. */
  serve(feed: Pick<ChannelHost, 'subscribe'>, req: Request, res: Response): void {
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache, no-store, no-transform');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    // Browsers reconnect by themselves; 3 s keeps a restart short without hammering a down server.
    res.write('retry: 3000\n: connected\n\n');
    const unsubscribe = feed.subscribe((change) => {
      res.write(
        `event: change\ndata: ${JSON.stringify({ id: change.requestId, status: change.status, kind: change.kind })}\n\n`,
      );
    });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    heartbeat.unref();
    const finish = () => {
      if (!this.open.delete(finish)) return;
      clearInterval(heartbeat);
      unsubscribe();
      res.end();
    };
    this.open.add(finish);
    req.on('close', finish);
  }

  /** Ends every open stream (on shutdown). */
  closeAll(): void {
    for (const finish of [...this.open]) finish();
  }
}
