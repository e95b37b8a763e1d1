/**
 * @module scheduler/redis-change-feed
 * The change feed of several gateway processes: a change published on one process wakes the long-poll and SSE
 * waiters of every process, over Redis pub/sub. Local subscribers hear a change at once (not after a Redis round
 * trip), and each process ignores the echo of its own publications. The database stays the truth: a change only
 * says "re-read this row", so a change lost while Redis is away costs a waiter its wake-up, never a wrong answer
 * (long-polls answer `pending` at the end of their wait and the client asks again).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { ChangeFeed, RequestChange } from '../lifecycle/change-feed.js';
import { GroupCommit } from '../utils/group-commit.js';
import { REQUEST_STATUSES } from '../requests/types.js';
import {
  closeRedis,
  createFailFastRedis,
  createRedis,
  withTimeout,
  type RedisConnectionOptions,
} from './redis-connections.js';
import { describeError } from '../api/errors.js';

/** Options of {@link RedisChangeFeed}. */
export interface RedisChangeFeedOptions {
  /** Redis: a URL (`REDIS_URL`) or ioredis options. */
  connection: RedisConnectionOptions;
  /** Namespace of the pub/sub channel, `<prefix>:changes` (default `tollgate`); processes with the same prefix hear each other. */
  prefix?: string;
  logger?: Logger;
}

/**
 * What travels on the channel: the changes of one event-loop turn and which process sent them. `change` (one change)
 * is what earlier versions sent; it is still read, so replicas can be upgraded one at a time.
 */
interface Envelope {
  origin: string;
  changes?: RequestChange[];
  change?: RequestChange;
}

/**
 * Request changes fanned out to every gateway process through Redis pub/sub.
 * @example
 * const feed = new RedisChangeFeed({ connection: process.env.REDIS_URL! });
 * await feed.ready(); // optional: resolves once subscribed
 * const gateway = new Gateway({ store, scheduler, feed });
 */
export class RedisChangeFeed implements ChangeFeed {
  /** The pub/sub channel. */
  readonly channel: string;
  private readonly origin = randomUUID();
  private readonly local = new EventEmitter().setMaxListeners(0);
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly logger: Logger;
  private readonly subscribed: Promise<void>;
  private lastError: string | null = null;
  private closed = false;
  /** Publications not yet answered by Redis. */
  private readonly sending = new Set<Promise<void>>();
  /** The changes of one turn go out as one message: 2,000 creates a second were 2,000 PUBLISHes, and as many echoes. */
  private readonly outgoing = new GroupCommit<RequestChange, void>(async (changes) => {
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ origin: this.origin, changes } satisfies Envelope));
    } catch (error) {
      // Other processes miss these wake-ups; their waiters still answer from the row when their wait ends.
      this.noteError(error);
    }
    return changes.map(() => undefined);
  });

  constructor(options: RedisChangeFeedOptions) {
    this.channel = `${options.prefix ?? 'tollgate'}:changes`;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.publisher = createFailFastRedis(options.connection, 2000, `${options.prefix ?? 'tollgate'}:feed-pub`);
    // The subscriber keeps its offline queue so SUBSCRIBE waits for Redis; ioredis re-subscribes after every reconnect.
    this.subscriber = createRedis(options.connection, {
      maxRetriesPerRequest: null,
      connectionName: `${options.prefix ?? 'tollgate'}:feed-sub`,
    });
    for (const client of [this.publisher, this.subscriber]) client.on('error', (error: Error) => this.noteError(error));
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.receive(message);
    });
    this.subscribed = this.subscribe0();
    this.subscribed.catch(() => undefined); // reported through health() and ready()
  }

  /** Resolves once this process hears the other processes (subscribed), or rejects after `timeoutMs`. */
  async ready(timeoutMs = 5000): Promise<void> {
    await withTimeout(this.subscribed, timeoutMs, 'change feed subscription');
  }

  async publish(change: RequestChange): Promise<void> {
    this.local.emit('change', change);
    if (this.closed) return;
    const sent = this.outgoing.add({ requestId: change.requestId, status: change.status, kind: change.kind });
    this.sending.add(sent);
    await sent.finally(() => this.sending.delete(sent));
  }

  subscribe(listener: (change: RequestChange) => void): () => void {
    this.local.on('change', listener);
    return () => this.local.off('change', listener);
  }

  async health(): Promise<{ ready: boolean; detail?: string }> {
    if (this.closed) return { ready: false, detail: 'change feed closed' };
    const down = [this.publisher, this.subscriber].filter((c) => c.status !== 'ready');
    if (!down.length) return { ready: true };
    return {
      ready: false,
      detail: `change feed redis ${down[0]!.status}${this.lastError ? ` (${this.lastError})` : ''}`,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.local.removeAllListeners();
    await Promise.allSettled([...this.sending]); // publishers need not wait for their change to go out: close does
    await Promise.all([closeRedis(this.publisher), closeRedis(this.subscriber)]);
  }

  private async subscribe0(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
    } catch (error) {
      this.noteError(error);
      throw error;
    }
  }

  private receive(message: string) {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message) as Envelope;
    } catch {
      this.logger.warn('change feed: ignoring a message that is not JSON');
      return;
    }
    if (envelope.origin === this.origin) return; // our own echo: local subscribers already heard it
    const changes: unknown[] = Array.isArray(envelope.changes) ? envelope.changes : [envelope.change];
    for (const change of changes as (Partial<RequestChange> | undefined)[]) {
      if (
        !change ||
        typeof change.requestId !== 'string' ||
        !REQUEST_STATUSES.includes(change.status as RequestChange['status']) ||
        (change.kind !== 'created' && change.kind !== 'changed')
      ) {
        this.logger.warn('change feed: ignoring a malformed change');
        continue;
      }
      this.local.emit('change', {
        requestId: change.requestId,
        status: change.status,
        kind: change.kind,
      } as RequestChange);
    }
  }

  private noteError(error: unknown) {
    const message = describeError(error);
    if (message !== this.lastError) this.logger.warn({ err: message }, 'change feed Redis error');
    this.lastError = message;
  }
}
