/**
 * @module lifecycle/change-feed
 * How waiters learn that a request changed. The gateway publishes after every committed state change; long-poll and
 * SSE waiters, the web inbox and card updaters subscribe. The database stays the truth: a change only says "re-read
 * this row". `LocalChangeFeed` serves one process; a Redis pub/sub feed (`scheduler/redis-change-feed.ts`) fans
 * changes out to every gateway process.
 */
import { EventEmitter } from 'node:events';
import type { RequestStatus } from '../requests/types.js';

/** A request was filed or changed state. */
export interface RequestChange {
  requestId: string;
  status: RequestStatus;
  /** `created` for a new request, `changed` for any later change (a decision, a partial approval, expiry, cancel). */
  kind: 'created' | 'changed';
}

/** Publish/subscribe of request changes. */
export interface ChangeFeed {
  /**
   * Tells every subscriber (in every process, for distributed feeds) that a request changed. Subscribers in this
   * process hear it before this returns; the promise settles once the other processes have been told. The gateway
   * does not wait for that, so {@link ChangeFeed.close} must send what is still going out.
   */
  publish(change: RequestChange): Promise<void>;
  /** Calls `listener` for every change until the returned function is called. */
  subscribe(listener: (change: RequestChange) => void): () => void;
  /** Whether the feed reaches the other processes now (for `/readyz`). */
  health?(): Promise<{ ready: boolean; detail?: string }>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** The in-process feed: an EventEmitter. */
export class LocalChangeFeed implements ChangeFeed {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(change: RequestChange): Promise<void> {
    this.emitter.emit('change', change);
  }

  subscribe(listener: (change: RequestChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
