/**
 * @module events/sink
 * Delivers the event stream to one webhook sink: events after the sink's cursor, POSTed in CloudEvents batches (or
 * one structured event per POST with `batch: false`) signed with `tollgate-signature: t=<unix>,v1=<hex
 * hmac-sha256("<t>.<body>")>`, up to four POSTs in flight, each request's events in order (./delivery-window.ts); the
 * cursor moves only past what the sink answered 2xx to (at least once). A sink that fails is retried with backoff (1 s doubling to
 * 60 s) and its backlog kept — up to `max_backlog` events, past which the oldest are skipped and counted. Changes of
 * someone's away status (`people_away`, not a request's events) follow with a cursor of their own, the same way.
 */
import type { Logger } from 'pino';
import { describeError } from '../api/errors.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { AWAY_CHANGED_TYPE, awayCloudEvent, STREAMED, toCloudEvent } from './cloud.js';
import type { AwayStore } from '../people/away-book.js';
import { toolAdmitted, type SinkConfig } from './config.js';
import { DeliveryWindow, type Outgoing } from './delivery-window.js';
import type { EventLog, PlacedEvent } from './types.js';
import { ANCHOR_TYPE, anchorCloudEvent, postCloudEvents } from './sink-post.js';

export { ANCHOR_TYPE, signatureHeader } from './sink-post.js';

/** What `/readyz` and `/metrics` show of a sink. */
export interface SinkState {
  name: string;
  delivered: number;
  failures: number;
  skipped: number;
  backlog: number;
  lastError: string | null;
}

/** What a sink reads besides the log: the requests of its events (their tools, and the `data.request`). */
export interface SinkDeps {
  log: EventLog;
  /** The rows of these request ids (one read per page of events); an id without a row is left out. */
  requests(ids: readonly string[]): Promise<ConfirmationRequest[]>;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** CloudEvents `source` (the public URL, else `tollgate`). */
  source: string;
  callbackAllow: readonly string[];
  now(): number;
  /** Changes of away status, sent as `dev.tollgate.person.away_changed` (absent: none). */
  away?: Pick<AwayStore, 'after' | 'head'>;
  /** Places what is pending now (the process's audit integrator): a page read over the API sees what was just written. */
  place?: () => Promise<void>;
}

/** Batches in flight at once (one per lane: see {@link DeliveryWindow}). */
const LANES = 4;
/** Events per POST at most. */
const BATCH = 100;
/** Events read per query, and read ahead of the acknowledgements at most (held in memory). */
const READ = 500;
const WINDOW = 2000;
/** How often the cursor is written while a drain goes on (and once at its end), and the head read for the backlog. */
const PERSIST_EVERY_MS = 250;
const HEAD_EVERY_MS = 1000;
/**
 * While batches are in flight, new events are read this long after the first kick rather than on every kick: a busy
 * gateway commits hundreds of times a second, and one read (and one POST per lane) for all of them costs far less.
 */
const LINGER_MS = 10;

/** One sink's delivery loop. */
export class EventSink {
  readonly state: SinkState;
  private backoffMs = 0;
  private retryAt = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private anchored = -1;
  /** What was read past the cursor and not yet acknowledged; kept across a failure so a retry resends just that. */
  private window: DeliveryWindow | null = null;
  /** Wakes a drain waiting on its batches to read what was committed since (see {@link LINGER_MS}). */
  private wake: (() => void) | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: SinkConfig,
    private readonly deps: SinkDeps,
  ) {
    this.state = { name: config.name, delivered: 0, failures: 0, skipped: 0, backlog: 0, lastError: null };
  }

  /** The cursor's name in `audit_marks`. */
  get mark(): string {
    return `sink:${this.config.url}`;
  }

  /** Delivers what is waiting (one run at a time; a kick during a run runs once more after it). */
  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      if (this.wake && !this.wakeTimer) {
        this.wakeTimer = setTimeout(() => {
          this.wakeTimer = null;
          this.wake?.();
        }, LINGER_MS);
        this.wakeTimer.unref();
      }
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        if (this.deps.now() < this.retryAt) return;
        await this.deps.log.exclusive(this.mark, () => this.drain()).catch((error: unknown) => this.failed(error));
      } while (this.again);
    })().finally(() => (this.running = null));
    return this.running;
  }

  /**
   * Reads events past the cursor into the window and keeps up to {@link LANES} batches in flight until nothing is
   * left; the first failure stops new batches, lets those in flight finish, and is thrown (backoff) once the cursor
   * is written.
   */
  private async drain(): Promise<void> {
    const { log, now } = this.deps;
    let head = await log.head();
    // A new sink starts at the present: it is sent what happens from now on (GET /v1/events pages the past).
    let cursor = (await log.cursor(this.mark)) ?? (await log.advance(this.mark, head), head);
    if (head - cursor > this.config.maxBacklog) {
      const skipTo = head - this.config.maxBacklog;
      this.state.skipped += skipTo - cursor;
      this.deps.logger.warn(
        { sink: this.config.name, skipped: skipTo - cursor },
        'events: sink backlog over max_backlog; the oldest events were skipped',
      );
      await log.advance(this.mark, skipTo);
      cursor = skipTo;
    }
    // The window read earlier holds only while nobody else moved the cursor (another replica, a skip).
    if (this.window?.base !== cursor) this.window = new DeliveryWindow(cursor, LANES);
    const window = this.window;
    const inFlight = new Set<Promise<void>>();
    // Set by a batch's promise (hence an object: a closure's assignment to a `let` is invisible to narrowing).
    const failed: { error?: unknown; yes: boolean } = { yes: false };
    let written = cursor;
    let headAt = now();
    let writtenAt = now();
    const persist = async () => {
      if (window.base > written) await log.advance(this.mark, (written = window.base));
      this.state.backlog = Math.max(0, head - window.base);
    };
    try {
      for (;;) {
        let read = -1;
        if (!failed.yes && window.size < WINDOW) {
          const events = await log.after(window.readTo, READ, STREAMED);
          read = events.length;
          if (read) window.add(await this.outgoing(events));
          if (window.readTo > head) head = window.readTo;
        }
        const perPost = this.config.batch ? BATCH : 1;
        for (
          let sent = failed.yes ? null : window.take(perPost);
          sent;
          sent = failed.yes ? null : window.take(perPost)
        ) {
          const batch = sent;
          const flight: Promise<void> = this.send(batch.events.map((e) => e.body!)).then(
            () => window.acknowledge(batch),
            (error: unknown) => {
              if (!failed.yes) Object.assign(failed, { yes: true, error });
              window.release(batch);
            },
          );
          inFlight.add(flight);
          void flight.finally(() => inFlight.delete(flight));
        }
        if (!inFlight.size) {
          // Done once a read found nothing new (or a failure waits for its backoff); a page filtered out entirely reads on.
          if (failed.yes || read === 0) break;
          continue;
        }
        await Promise.race([...inFlight, new Promise<void>((resolve) => (this.wake = resolve))]);
        this.wake = null;
        if (now() - headAt >= HEAD_EVERY_MS) {
          head = Math.max(head, await log.head());
          headAt = now();
        }
        if (now() - writtenAt >= PERSIST_EVERY_MS) {
          writtenAt = now();
          await persist();
        }
      }
    } finally {
      this.wake = null;
      await Promise.allSettled(inFlight);
      // One cursor write every PERSIST_EVERY_MS and at the end, not one per batch: each is a durable commit. A crash
      // repeats what was acknowledged since the last write, which at-least-once allows (consumers deduplicate on id).
      await persist();
    }
    if (failed.yes) throw failed.error;
    await this.drainAway();
    this.state.backlog = 0;
    this.backoffMs = 0;
    this.state.lastError = null;
  }

  /** The events as the sink sends them: each with its request as it is now, or a null body when a filter leaves it out. */
  private async outgoing(events: readonly PlacedEvent[]): Promise<Outgoing[]> {
    const requests = new Map(
      (await this.deps.requests([...new Set(events.map((e) => e.requestId))])).map((r) => [r.id, r]),
    );
    return events.map((event) => {
      const request = requests.get(event.requestId) ?? null;
      const cloud = toCloudEvent(event, request, this.deps.source);
      const wanted =
        (!this.config.types || this.config.types.has(cloud.type)) &&
        toolAdmitted(this.config.tools, request?.toolName ?? '');
      return { id: event.position, requestId: event.requestId, body: wanted ? JSON.stringify(cloud) : null };
    });
  }

  /**
   * Sends the changes of away status after the sink's own cursor on them (`people:<url>`), starting at the present
   * for a new sink. A sink filtering by tool gets none: they concern no tool.
   */
  private async drainAway(): Promise<void> {
    const { log, away } = this.deps;
    if (!away || this.config.tools || (this.config.types && !this.config.types.has(AWAY_CHANGED_TYPE))) return;
    const mark = `people:${this.config.url}`;
    let cursor = await log.cursor(mark);
    if (cursor === null) {
      cursor = await away.head();
      await log.advance(mark, cursor);
    }
    const perPost = this.config.batch ? BATCH : 1;
    for (;;) {
      const changes = await away.after(cursor, BATCH);
      if (!changes.length) return;
      for (let i = 0; i < changes.length; i += perPost) {
        const part = changes.slice(i, i + perPost);
        await this.send(part.map((change) => JSON.stringify(awayCloudEvent(change, this.deps.source))));
        cursor = part.at(-1)!.id!;
        await log.advance(mark, cursor);
      }
    }
  }

  /** POSTs CloudEvents (each already JSON) signed, as one batch or one structured event (`events/sink-post`). */
  private async send(events: readonly string[]): Promise<void> {
    await postCloudEvents(this.config, this.deps, events);
    this.state.delivered += events.length;
  }

  /**
   * Posts the audit chain's signed head (`dev.tollgate.audit.head`), if the sink takes that type and the head moved
   * since the last one it got: an anchor kept where the database's writers cannot reach. Best effort, never retried
   * (the next one follows); only the replica delivering the sink sends it.
   */
  async anchor(head: { event_id: number; hash: string; at: string; signature: string | null }): Promise<void> {
    if ((this.config.types && !this.config.types.has(ANCHOR_TYPE)) || head.event_id === this.anchored) return;
    const cloud = anchorCloudEvent(head, this.deps.source);
    await this.deps.log
      .exclusive(this.mark, async () => {
        await this.send([JSON.stringify(cloud)]);
        this.anchored = head.event_id;
      })
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { sink: this.config.name, err: describeError(error) },
          'events: the audit head was not delivered; the next one follows',
        ),
      );
  }

  private failed(error: unknown): void {
    this.state.failures++;
    this.state.lastError = describeError(error);
    this.backoffMs = Math.min(60_000, this.backoffMs ? this.backoffMs * 2 : 1000);
    this.retryAt = this.deps.now() + this.backoffMs;
    this.deps.logger.warn(
      { sink: this.config.name, err: this.state.lastError, retryInMs: this.backoffMs },
      'events: delivery failed; the backlog is kept and retried',
    );
  }
}
